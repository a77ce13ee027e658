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
 * A benchmark of a DhtCluster: the operator runs the spec's tapes as a Kubernetes Job of the load-runner image,
 * asks the members' profiler sidecars for flamegraphs during each tape, and keeps every run's artifacts in a
 * results volume under {@code <benchmark>/<run id>/}. A spec change or a new value of the annotation
 * {@value #RERUN_ANNOTATION} starts a new run; earlier runs' artifacts stay and their figures move to
 * {@code status.history}.
 *
 * <p>The CRD in {@code crds/} is generated from this class (never edit the YAML by hand).
 */
@Group(DhtCluster.GROUP)
@Version(DhtCluster.VERSION)
@Kind(DhtBenchmark.KIND)
@Plural("dhtbenchmarks")
@Singular("dhtbenchmark")
@ShortNames("dhtbench")
@AdditionalPrinterColumn(
        name = "Cluster",
        jsonPath = ".spec.cluster",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The DhtCluster under load")
@AdditionalPrinterColumn(
        name = "Engine",
        jsonPath = ".spec.engine",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "What sends the load: k6 or oha")
@AdditionalPrinterColumn(
        name = "Phase",
        jsonPath = ".status.phase",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Pending, Running, Succeeded or Failed")
@AdditionalPrinterColumn(
        name = "Run",
        jsonPath = ".status.runId",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Id of the current run (its artifacts' directory)")
@AdditionalPrinterColumn(
        name = "RPS",
        jsonPath = ".status.tapes[0].rps",
        type = AdditionalPrinterColumn.Type.NUMBER,
        getDescription = "Requests per second of the first tape")
@AdditionalPrinterColumn(
        name = "P99-ms",
        jsonPath = ".status.tapes[0].p99Ms",
        type = AdditionalPrinterColumn.Type.NUMBER,
        getDescription = "99th percentile latency of the first tape")
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
// The name prefixes the Jobs ("<name>-<run id>", whose pods' job-name label is limited to 63 characters) and
// the results claim.
@ValidationRule(
        value = "self.metadata.name.size() <= " + DhtBenchmark.MAX_NAME_LENGTH
                + " && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
        message = "metadata.name must be at most " + DhtBenchmark.MAX_NAME_LENGTH
                + " characters of lowercase letters, digits and '-', starting with a letter"
                + " (it prefixes the names of the benchmark's Jobs and results volume)",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "has(self.spec)",
        message = "spec is required: at least spec.cluster, the name of the DhtCluster to load",
        reason = "FieldValueRequired")
public class DhtBenchmark extends CustomResource<DhtBenchmarkSpec, DhtBenchmarkStatus> implements Namespaced {
    public static final String KIND = "DhtBenchmark";
    public static final int MAX_NAME_LENGTH = 40;
    /** Set it to a new value (a time, a counter) to run the same spec again. */
    public static final String RERUN_ANNOTATION = "dht.dev/rerun";
    /** Order of the printer columns (the generator sorts them by path; the build restores this order). */
    public static final List<String> PRINTER_COLUMNS =
            List.of("Cluster", "Engine", "Phase", "Run", "RPS", "P99-ms", "Age");

    @Override
    protected DhtBenchmarkSpec initSpec() {
        return new DhtBenchmarkSpec();
    }
}
