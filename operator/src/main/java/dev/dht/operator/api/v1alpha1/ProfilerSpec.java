package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class ProfilerSpec {
    @Default("false")
    @JsonPropertyDescription("Prepare members for profiling: flame graphs from /v0/admin/profile are also written"
            + " to the data volume (profiles/), and the JVM keeps debug info for non-safepoint frames.")
    public Boolean enabled;

    @Default(Defaults.PROFILER_EVENTS)
    @JsonPropertyDescription("Events benchmarks capture by default: cpu, alloc, lock, wall.")
    public List<ProfilerEvent> events;
}
