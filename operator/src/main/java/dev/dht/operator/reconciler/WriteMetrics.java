package dev.dht.operator.reconciler;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * Counts the writes the reconciler makes, by kind. A steady cluster should show none: each write is
 * a change the operator had to make (and a reconcile that wrote nothing was idempotent).
 */
public final class WriteMetrics {
    public static final String WRITES = "dht.operator.writes";
    public static final String RECONCILES = "dht.operator.reconciles";
    private final MeterRegistry registry;

    public WriteMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public static WriteMetrics inMemory() {
        return new WriteMetrics(new SimpleMeterRegistry());
    }

    public void write(String kind) {
        Counter.builder(WRITES)
                .description("Objects written (server-side apply, status patch) by kind")
                .tag("kind", kind)
                .register(registry)
                .increment();
    }

    void reconciled(String result) {
        Counter.builder(RECONCILES)
                .description("DhtCluster reconciles by result")
                .tag("result", result)
                .register(registry)
                .increment();
    }

    public double writes() {
        return registry.find(WRITES).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    public double reconciles() {
        return registry.find(RECONCILES).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    public MeterRegistry registry() {
        return registry;
    }
}
