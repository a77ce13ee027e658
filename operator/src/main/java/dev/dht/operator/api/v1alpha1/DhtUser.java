package dev.dht.operator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;

/**
 * A client of a DhtCluster with a client certificate (docs/operations.md, "Client certificates"): the operator
 * issues it from the cluster's client CA into a Secret (tls.crt, tls.key, ca.crt) the client mounts, with subject
 * {@code O=<scope>, CN=<this name>}, renews it before it expires and re-issues it during a client CA replacement.
 * Deleting the object deletes the Secret; a certificate already copied elsewhere stays valid until it expires or the
 * CA is replaced (no revocation list is read).
 *
 * <p>The CRD in {@code crds/} is generated from this class (never edit the YAML by hand).
 */
@Group(DhtCluster.GROUP)
@Version(DhtCluster.VERSION)
@Kind(DhtUser.KIND)
@Plural("dhtusers")
@Singular("dhtuser")
@ShortNames("dhtu")
@AdditionalPrinterColumn(
        name = "Cluster",
        jsonPath = ".spec.cluster",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The DhtCluster this user is a client of")
@AdditionalPrinterColumn(
        name = "Scope",
        jsonPath = ".spec.scope",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "read-only, read-write or admin")
@AdditionalPrinterColumn(
        name = "Secret",
        jsonPath = ".status.secretName",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The Secret with the client certificate")
@AdditionalPrinterColumn(
        name = "Expires",
        jsonPath = ".status.notAfter",
        type = AdditionalPrinterColumn.Type.DATE,
        getDescription = "When the certificate expires (renewed before)")
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(
        value = "self.metadata.name.size() <= 63" + " && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
        message = "metadata.name must be at most 63 lowercase letters, digits and '-' (it is the certificate's CN)",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "has(self.spec) && has(self.spec.cluster) && has(self.spec.scope)",
        message = "spec.cluster (the DhtCluster's name) and spec.scope (read-only, read-write or admin) are required",
        reason = "FieldValueRequired")
public class DhtUser extends CustomResource<DhtUserSpec, DhtUserStatus> implements Namespaced {
    public static final String KIND = "DhtUser";
    /** Order of the printer columns (the generator sorts them by path; the build restores this order). */
    public static final List<String> PRINTER_COLUMNS = List.of("Cluster", "Scope", "Secret", "Expires", "Age");

    @Override
    protected DhtUserSpec initSpec() {
        return new DhtUserSpec();
    }
}
