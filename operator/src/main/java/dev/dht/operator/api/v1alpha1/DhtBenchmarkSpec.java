package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/** What to run against which cluster. Defaults live in the schema (the API server fills them in). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "self.profile != 'ramp' || has(self.rampTo)",
        message = "spec.rampTo is required with profile ramp (the rate the ramp rises to): set spec.rampTo,"
                + " or use profile const with spec.rate",
        fieldPath = ".rampTo",
        reason = "FieldValueRequired")
@ValidationRule(
        value = "!has(self.replicas) || int(self.replicas.split('/')[0]) <= int(self.replicas.split('/')[1])",
        message = "spec.replicas is ack/from and ack must not exceed from (e.g. 2/3)",
        fieldPath = ".replicas",
        reason = "FieldValueInvalid")
public class DhtBenchmarkSpec {
    @Required
    @Pattern("^[a-z]([-a-z0-9]*[a-z0-9])?$")
    @JsonPropertyDescription(
            "Name of the DhtCluster to load, in the benchmark's namespace. A run starts when it is" + " Ready.")
    public String cluster;

    @Size(min = 1, max = 5)
    @ValidationRule(
            value = "self.all(t, self.exists_one(u, u == t))",
            message = "spec.tapes lists a tape twice: list each tape once")
    @Default(BenchmarkDefaults.TAPES)
    @JsonPropertyDescription(
            "Tapes to run, one after the other: put-unique, put-overwrite, get-uniform, get-recent," + " mixed.")
    public List<Tape> tapes;

    @Default(BenchmarkDefaults.PROFILE)
    @JsonPropertyDescription("const: a constant arrival rate (spec.rate); ramp: a rate rising from 1 to spec.rampTo"
            + " over the duration, reporting the saturation point.")
    public LoadProfile profile;

    @Default(BenchmarkDefaults.ENGINE)
    @JsonPropertyDescription("What sends the load. k6: an open model through its arrival-rate executors; oha: a"
            + " fixed rate with coordinated omission corrected (--latency-correction, every request timed from when it"
            + " was due), for rates k6 cannot hold; its ramp is a staircase of 3 s fixed-rate steps. Same tapes, same"
            + " figures.")
    public LoadEngine engine;

    @Min(1)
    @Max(1000000)
    @Default(BenchmarkDefaults.RATE)
    @JsonPropertyDescription("Requests per second of the const profile.")
    public Integer rate;

    @Min(1)
    @Max(1000000)
    @JsonPropertyDescription("Requests per second the ramp profile ends at (required with profile ramp).")
    public Integer rampTo;

    @Pattern(BenchmarkDefaults.DURATION_PATTERN)
    @Default(BenchmarkDefaults.DURATION)
    @JsonPropertyDescription("Length of each tape, e.g. 20s, 5m (units s, m, h).")
    public String duration;

    @Size(max = 5)
    @Pattern("^[1-9][0-9]?/[1-9][0-9]?$")
    @JsonPropertyDescription("replicas=ack/from of every request, e.g. 2/3. Default: the cluster's (a quorum of"
            + " the replication factor).")
    public String replicas;

    @Min(1)
    @Max(100000000)
    @Default(BenchmarkDefaults.PREFILL)
    @JsonPropertyDescription("Size of the key set written before the first tape that reads or overwrites keys"
            + " (put-overwrite, get-uniform, get-recent, mixed); those tapes pick their keys in it.")
    public Integer prefill;

    @Min(1)
    @Max(1048576)
    @Default(BenchmarkDefaults.VALUE_SIZE)
    @JsonPropertyDescription("Bytes of each written value.")
    public Integer valueSize;

    @Default(BenchmarkDefaults.TARGET)
    @JsonPropertyDescription("service: the cluster's client Service; members: every member directly, round robin.")
    public TargetMode target;

    @Default("{}")
    @JsonPropertyDescription("Flamegraphs of every member during each tape (needs the cluster's"
            + " spec.profiler.enabled, which adds the profiler sidecar to its pods).")
    public BenchmarkProfilerSpec profiler;

    @Default("{}")
    @JsonPropertyDescription("The volume that keeps every run's artifacts.")
    public ResultsSpec results;

    @JsonPropertyDescription(
            "Load-runner image of the Job. Default: the operator's (dht-loadrunner:<operator" + " version>).")
    public String image;
}
