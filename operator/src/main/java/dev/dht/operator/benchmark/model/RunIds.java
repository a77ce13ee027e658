package dev.dht.operator.benchmark.model;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collection;

/**
 * Run ids: the UTC start time, yyyyMMdd-HHmmss, so that runs sort by time in the results volume and in
 * bench-results/ after make bench-fetch; "-2", "-3", ... when a run of the same benchmark started in the same second.
 */
public final class RunIds {
    private static final DateTimeFormatter FORMAT =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private RunIds() {}

    public static String next(Instant now, Collection<String> taken) {
        String base = FORMAT.format(now);
        String id = base;
        for (int n = 2; taken.contains(id); n++) {
            id = base + "-" + n;
        }
        return id;
    }
}
