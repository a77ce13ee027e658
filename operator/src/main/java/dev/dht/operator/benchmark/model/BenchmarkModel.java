package dev.dht.operator.benchmark.model;

import dev.dht.operator.api.v1alpha1.BenchmarkDefaults;
import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.api.v1alpha1.DhtBenchmarkSpec;
import dev.dht.operator.api.v1alpha1.LoadEngine;
import dev.dht.operator.api.v1alpha1.LoadProfile;
import dev.dht.operator.api.v1alpha1.ProfilerEvent;
import dev.dht.operator.api.v1alpha1.Tape;
import dev.dht.operator.api.v1alpha1.TargetMode;
import dev.dht.operator.model.InvalidSpecException;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A benchmark's spec with every default applied and every value checked: the one input of the Job and claim
 * builders. {@link #from} is the only place that reads the raw spec. The schema rejects bad specs already;
 * this is the second line, and the place for checks across fields the schema cannot express.
 *
 * @param profilerEvents the spec's events; empty Optional: take the cluster's spec.profiler.events
 */
public record BenchmarkModel(
        String name,
        String namespace,
        String cluster,
        List<Tape> tapes,
        LoadProfile profile,
        LoadEngine engine,
        int rate,
        Optional<Integer> rampTo,
        Duration duration,
        Optional<String> replicas,
        int prefill,
        int valueSize,
        TargetMode target,
        Optional<List<ProfilerEvent>> profilerEvents,
        Duration capture,
        String resultsSize,
        Optional<String> resultsStorageClass,
        boolean retainResults,
        String image) {

    public static BenchmarkModel from(DhtBenchmark benchmark, String defaultImage) {
        var meta = benchmark.getMetadata();
        var spec = benchmark.getSpec() != null ? benchmark.getSpec() : new DhtBenchmarkSpec();
        if (spec.cluster == null || spec.cluster.isBlank()) {
            throw new InvalidSpecException("spec.cluster is required: the name of the DhtCluster to load");
        }
        List<Tape> tapes =
                spec.tapes != null && !spec.tapes.isEmpty() ? List.copyOf(spec.tapes) : List.of(Tape.values());
        if (tapes.stream().distinct().count() != tapes.size()) {
            throw new InvalidSpecException("spec.tapes lists a tape twice: "
                    + tapes.stream().map(Tape::id).toList()
                    + "; list each tape once (runs of the same tape overwrite each other's files)");
        }
        var profile = spec.profile != null ? spec.profile : LoadProfile.CONST;
        var rampTo = Optional.ofNullable(spec.rampTo);
        if (profile == LoadProfile.RAMP && rampTo.isEmpty()) {
            throw new InvalidSpecException("spec.rampTo is required with profile ramp: set the rate the ramp rises to");
        }
        var duration = duration("spec.duration", spec.duration, BenchmarkDefaults.DURATION);
        var replicas =
                Optional.ofNullable(spec.replicas).filter(r -> !r.isBlank()).map(String::trim);
        replicas.ifPresent(BenchmarkModel::checkReplicas);
        var profiler = spec.profiler;
        Optional<List<ProfilerEvent>> events = profiler != null && profiler.events != null
                ? Optional.of(List.copyOf(profiler.events))
                : Optional.empty();
        var capture = duration(
                "spec.profiler.duration", profiler != null ? profiler.duration : null, BenchmarkDefaults.CAPTURE);
        var results = spec.results;
        String size = results != null && results.size != null ? results.size.trim() : BenchmarkDefaults.RESULTS_SIZE;
        try {
            if (Quantity.getAmountInBytes(new Quantity(size)).signum() <= 0) {
                throw new IllegalArgumentException();
            }
        } catch (RuntimeException e) {
            throw new InvalidSpecException("spec.results.size is '" + size + "', not a positive quantity such as 1Gi");
        }
        var model = new BenchmarkModel(
                meta.getName(),
                meta.getNamespace(),
                spec.cluster.trim(),
                tapes,
                profile,
                spec.engine != null ? spec.engine : LoadEngine.K6,
                spec.rate != null ? spec.rate : Integer.parseInt(BenchmarkDefaults.RATE),
                rampTo,
                duration,
                replicas,
                spec.prefill != null ? spec.prefill : Integer.parseInt(BenchmarkDefaults.PREFILL),
                spec.valueSize != null ? spec.valueSize : Integer.parseInt(BenchmarkDefaults.VALUE_SIZE),
                spec.target != null ? spec.target : TargetMode.SERVICE,
                events,
                capture,
                size,
                results != null
                        ? Optional.ofNullable(results.storageClassName).filter(s -> !s.isBlank())
                        : Optional.empty(),
                results != null && Boolean.TRUE.equals(results.retainOnDelete),
                spec.image != null && !spec.image.isBlank() ? spec.image.trim() : defaultImage);
        events.ifPresent(model::checkCapturesFit);
        return model;
    }

    /**
     * Every capture of a tape runs one after the other (the node profiles one event at a time) inside the tape;
     * they must fit, or the last ones would profile an idle node. The Job places them at the end of the tape's
     * steady part (after the longest warm-up that leaves room for them, before the last seconds).
     */
    public void checkCapturesFit(List<ProfilerEvent> events) {
        Duration all = capture.multipliedBy(events.size());
        if (all.compareTo(duration) > 0) {
            throw new InvalidSpecException("the captures do not fit in a tape: " + events.size() + " event(s) x "
                    + seconds(capture) + " = " + seconds(all) + " but spec.duration is " + seconds(duration)
                    + ": raise spec.duration, shorten spec.profiler.duration or capture fewer events");
        }
    }

    static void checkReplicas(String replicas) {
        String[] parts = replicas.split("/");
        try {
            int ack = Integer.parseInt(parts[0]);
            int from = Integer.parseInt(parts[1]);
            if (parts.length == 2 && ack >= 1 && ack <= from) {
                return;
            }
        } catch (RuntimeException e) {
            // reported below
        }
        throw new InvalidSpecException(
                "spec.replicas is '" + replicas + "' but must be ack/from with 1 <= ack <= from," + " e.g. 2/3");
    }

    static Duration duration(String field, String value, String otherwise) {
        String text = value == null || value.isBlank() ? otherwise : value.trim();
        if (!text.matches("[1-9][0-9]{0,5}[smh]")) {
            throw new InvalidSpecException(field + " is '" + text + "' but must be whole seconds, minutes or hours,"
                    + " such as 30s, 5m or 1h");
        }
        long amount = Long.parseLong(text.substring(0, text.length() - 1));
        return switch (text.charAt(text.length() - 1)) {
            case 's' -> Duration.ofSeconds(amount);
            case 'm' -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        };
    }

    /** A duration as the runner and the node read it: whole seconds. */
    public static String seconds(Duration duration) {
        return duration.toSeconds() + "s";
    }
}
