package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class BenchmarkProfilerSpec {
    @JsonPropertyDescription(
            "async-profiler events to capture, one after the other, at the end of each tape's steady part:"
                    + " cpu, alloc, lock, wall. Default: the cluster's spec.profiler.events. An empty list captures nothing.")
    @Size(max = 4)
    @ValidationRule(
            value = "self.all(e, self.exists_one(f, f == e))",
            message = "spec.profiler.events lists an event twice: list each event once")
    public List<ProfilerEvent> events;

    @Pattern(BenchmarkDefaults.DURATION_PATTERN)
    @Default(BenchmarkDefaults.CAPTURE)
    @JsonPropertyDescription("Length of each capture, e.g. 10s. All events of a tape must fit in its duration.")
    public String duration;
}
