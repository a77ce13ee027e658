package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/** A cert-manager issuer (cert-manager.io/v1 Certificate's issuerRef). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class IssuerRef {
    @Required
    @Size(min = 1, max = 253)
    @JsonPropertyDescription("Name of the Issuer (in the cluster's namespace) or ClusterIssuer.")
    public String name;

    @Default("Issuer")
    @Pattern("^(Issuer|ClusterIssuer)$")
    @JsonPropertyDescription("Issuer or ClusterIssuer.")
    public String kind;

    @Default("cert-manager.io")
    @JsonPropertyDescription("API group of the issuer.")
    public String group;

    public IssuerRef() {}

    public IssuerRef(String name, String kind, String group) {
        this.name = name;
        this.kind = kind;
        this.group = group;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IssuerRef r
                && Objects.equals(name, r.name)
                && Objects.equals(kind, r.kind)
                && Objects.equals(group, r.group);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, kind, group);
    }
}
