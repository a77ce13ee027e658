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

/**
 * A dht cluster: a StatefulSet of storage nodes, their Services, topology and PodDisruptionBudget.
 *
 * <p>The CRD in {@code crds/} is generated from this class and the classes it references (never
 * edit the YAML by hand). Printer columns give {@code kubectl get dht}: READY REPLICAS RF RACKS PHASE AGE.
 */
@Group(DhtCluster.GROUP)
@Version(DhtCluster.VERSION)
@Kind(DhtCluster.KIND)
@Plural("dhtclusters")
@Singular("dhtcluster")
@ShortNames("dht")
@AdditionalPrinterColumn(
        name = "Ready",
        jsonPath = ".status.readyReplicas",
        type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "Members whose pod is ready")
@AdditionalPrinterColumn(
        name = "Replicas",
        jsonPath = ".spec.replicas",
        type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "Desired number of members")
@AdditionalPrinterColumn(
        name = "RF",
        jsonPath = ".status.replicationFactor",
        type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "Effective replication factor")
@AdditionalPrinterColumn(
        name = "Racks",
        jsonPath = ".status.racksReady",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Ready members of each rack: name ready/members")
@AdditionalPrinterColumn(
        name = "Phase",
        jsonPath = ".status.phase",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Creating, Ready, Scaling, Updating, Degraded or Failed")
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
// The name prefixes every object the cluster owns (Services, pods "<name>-<ordinal>", the
// StatefulSet's "controller-revision-hash" label, limited to 63 characters), so it must be a
// DNS-1035 label short enough to leave room for those suffixes.
@ValidationRule(
        value = "self.metadata.name.size() <= " + DhtCluster.MAX_NAME_LENGTH
                + " && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
        message = "metadata.name must be at most " + DhtCluster.MAX_NAME_LENGTH
                + " characters of lowercase letters, digits and '-', starting with a letter"
                + " (it prefixes the names of the Services and pods the cluster owns)",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "!has(self.spec) || !has(self.spec.racks) || self.spec.racks.all(r, self.metadata.name.size() + 1"
                + " + r.name.size() <= " + RackSpec.MAX_STATEFUL_SET_NAME + ")",
        message = "a rack's StatefulSet is named <cluster>-<rack>, which must fit in " + RackSpec.MAX_STATEFUL_SET_NAME
                + " characters (the controller adds a revision hash to it in a 63-character label): shorten the rack's or"
                + " the cluster's name",
        reason = "FieldValueInvalid")
// Only the status knows whether a drained rack still holds members; a spec update keeps the stored status.
@ValidationRule(
        value = "!has(oldSelf.spec) || !has(oldSelf.spec.racks) || !has(oldSelf.status) || !has(oldSelf.status.racks)"
                + " || oldSelf.spec.racks.all(o, has(self.spec.racks) && self.spec.racks.exists(r, r.name == o.name)"
                + " || !oldSelf.status.racks.exists(s, s.name == o.name && (s.members > 0 || s.replicas > 0)))",
        message = "spec.racks: a drained rack is removed only once it holds no member and runs no pod (see"
                + " status.racks): wait until its drain is done, then remove it",
        reason = "FieldValueForbidden")
// Only the status knows the level the members run at; a spec update keeps the stored status.
@ValidationRule(
        value = "!has(self.spec) || !has(self.spec.featureLevel) || !has(oldSelf.status)"
                + " || !has(oldSelf.status.featureLevel) || self.spec.featureLevel >= oldSelf.status.featureLevel"
                + " || (has(oldSelf.spec) && has(oldSelf.spec.featureLevel)"
                + " && oldSelf.spec.featureLevel == self.spec.featureLevel)",
        message = "spec.featureLevel cannot be lower than the level the members already run at (status.featureLevel):"
                + " a feature level is never lowered; set it to status.featureLevel or higher, or remove it",
        reason = "FieldValueForbidden")
public class DhtCluster extends CustomResource<DhtClusterSpec, DhtClusterStatus> implements Namespaced {
    public static final String GROUP = "dht.dev";
    public static final String VERSION = "v1alpha1";
    public static final String KIND = "DhtCluster";
    public static final int MAX_NAME_LENGTH = 40;
    /** Order of the printer columns (the generator sorts them by path; the build restores this order). */
    public static final java.util.List<String> PRINTER_COLUMNS =
            java.util.List.of("Ready", "Replicas", "RF", "Racks", "Phase", "Age");

    @Override
    protected DhtClusterSpec initSpec() {
        return new DhtClusterSpec();
    }
}
