package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** The user's certificate as the operator last issued it. Written only by the operator. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DhtUserStatus extends FieldText {
    @JsonPropertyDescription("The Secret with tls.crt, tls.key (PKCS#8) and ca.crt (the CAs the client trusts).")
    public String secretName;

    @JsonPropertyDescription("The certificate's subject (O names the scope).")
    public String subject;

    @JsonPropertyDescription("When the certificate expires (RFC 3339); it is renewed before.")
    public String notAfter;

    @JsonPropertyDescription("What the operator did or waits for.")
    public String message;

    @JsonPropertyDescription("Ready: the Secret holds a certificate of the cluster's current client CA.")
    public List<Condition> conditions = new ArrayList<>();
}
