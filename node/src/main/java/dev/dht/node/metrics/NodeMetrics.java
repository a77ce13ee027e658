package dev.dht.node.metrics;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.core.metrics.MetricWithFixedMetadata;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.DoubleSupplier;

/**
 * The node's metrics: one registry per node (tests run several nodes in one JVM), names as constants here.
 * The hot path touches only {@link #observeRequest} (a cached histogram data point per method and status: no
 * label lookup, no allocation) and {@link #rejected()}; everything else is read at scrape time by callbacks.
 */
public final class NodeMetrics {
    public static final String REQUEST_DURATION = "dht_request_duration_seconds";
    public static final String REJECTED = "dht_requests_rejected";
    public static final String TO_WORKERS = "dht_worker_requests";
    public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    /** Method index for {@link #observeRequest}. */
    public static final int GET = 0;

    public static final int PUT = 1;
    public static final int DELETE = 2;
    public static final int OTHER = 3;
    private static final String[] METHOD_NAMES = {"GET", "PUT", "DELETE", "OTHER"};
    private static final int STATUSES = 600;

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Histogram requests;
    private final AtomicReferenceArray<DistributionDataPoint> points =
            new AtomicReferenceArray<>(METHOD_NAMES.length * STATUSES);
    private final Counter rejected;
    private final Counter toWorkers;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    public NodeMetrics() {
        requests = Histogram.builder()
                .name(REQUEST_DURATION)
                .help("Time from a parsed request to its response handed to the socket, by method and status; "
                        + "_count is the request count")
                .labelNames("method", "status")
                .classicOnly()
                .classicUpperBounds(
                        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
                .withoutExemplars()
                .register(registry);
        rejected = Counter.builder()
                .name(REJECTED)
                .help("Requests answered 503 at once because the worker queue was full")
                .withoutExemplars()
                .register(registry);
        toWorkers = Counter.builder()
                .name(TO_WORKERS)
                .help("Requests handed to the worker pool: reads and writes that needed the disk or would have"
                        + " stalled, ranges, and requests started by another thread's answer")
                .withoutExemplars()
                .register(registry);
        JvmMetrics.builder().register(registry);
    }

    /** Records one answered request. method: {@link #GET}..{@link #OTHER}. */
    public void observeRequest(int method, int status, long nanos) {
        int s = status >= 0 && status < STATUSES ? status : 599;
        int i = method * STATUSES + s;
        DistributionDataPoint p = points.get(i);
        if (p == null) {
            p = requests.labelValues(METHOD_NAMES[method], Integer.toString(s));
            points.set(i, p);
        }
        p.observe(nanos / 1e9);
    }

    public void rejected() {
        rejected.inc();
    }

    public void toWorker() {
        toWorkers.inc();
    }

    /** A gauge read at scrape time. */
    public void gauge(String name, String help, DoubleSupplier value) {
        register(GaugeWithCallback.builder().callback(cb -> cb.call(value.getAsDouble())), name, help, List.of());
    }

    /** A monotonic counter read at scrape time (name without _total; the format adds it). */
    public void counter(String name, String help, DoubleSupplier value) {
        register(CounterWithCallback.builder().callback(cb -> cb.call(value.getAsDouble())), name, help, List.of());
    }

    /** A monotonic counter with one label, each value read at scrape time (name without _total). */
    public void labelledCounter(String name, String help, String label, java.util.Map<String, DoubleSupplier> values) {
        java.util.Map<String, DoubleSupplier> copy = new java.util.LinkedHashMap<>(values);
        register(
                CounterWithCallback.builder()
                        .callback(cb -> copy.forEach((value, supplier) -> cb.call(supplier.getAsDouble(), value))),
                name,
                help,
                List.of(label));
    }

    /** Receives the samples of a labelled metric at scrape time: one call per label combination. */
    public interface Samples {
        void sample(double value, String... labelValues);
    }

    /** An info metric ({@code name_info 1} with these labels), e.g. the build's release. */
    public void info(String name, String help, String label, String value) {
        register(Info.builder(), name, help, List.of(label)).setLabelValues(value);
    }

    /** Gauges whose label combinations are only known at scrape time (e.g. one per peer). */
    public void labelledGauges(
            String name, String help, List<String> labels, java.util.function.Consumer<Samples> samples) {
        register(GaugeWithCallback.builder().callback(cb -> samples.accept(cb::call)), name, help, labels);
    }

    /** Monotonic counters whose label combinations are only known at scrape time (name without _total). */
    public void labelledCounters(
            String name, String help, List<String> labels, java.util.function.Consumer<Samples> samples) {
        register(CounterWithCallback.builder().callback(cb -> samples.accept(cb::call)), name, help, labels);
    }

    /**
     * A metric, its own part (e.g. the callback) already built, named and registered here. No labels is what the
     * builder has by default (an empty array).
     */
    private <B extends MetricWithFixedMetadata.Builder<B, M>, M extends MetricWithFixedMetadata> M register(
            B builder, String name, String help, List<String> labels) {
        return builder.name(name)
                .help(help)
                .labelNames(labels.toArray(String[]::new))
                .register(registry);
    }

    /** The Prometheus text exposition of every metric. */
    public byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(32 * 1024);
        try {
            writer.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    public static int methodIndex(String method) {
        return switch (method) {
            case "GET" -> GET;
            case "PUT" -> PUT;
            case "DELETE" -> DELETE;
            default -> OTHER;
        };
    }
}
