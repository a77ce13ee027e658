package dev.dht.node.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a backup test wrote, and what a restore of it may therefore hold (the model the checks compare with). Every
 * write has a value no other write has; each write is recorded with its answer and the phase it was made in:
 * before the start point T0 (every answer known before T0 was fixed), in the window (during the backup: it may or
 * may not be in it), or after the backup (it cannot be in it).
 */
final class History {
    enum Phase {
        BEFORE,
        WINDOW,
        AFTER
    }

    /** One write: its value (null for a delete), whether it was acknowledged, and when. */
    record Event(byte[] value, boolean acked, Phase phase) {}

    private final Map<String, List<Event>> events = new ConcurrentHashMap<>();
    private final AtomicLong seq = new AtomicLong();
    volatile Phase phase = Phase.BEFORE;

    /** A value no other write has, about 64 bytes. */
    byte[] newValue(String id) {
        String v = "v" + seq.incrementAndGet() + ":" + id + ":";
        StringBuilder sb = new StringBuilder(v);
        while (sb.length() < 64) {
            sb.append((char) ('a' + sb.length() % 26));
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Records a write and its status (2xx: acknowledged). */
    void record(String id, byte[] value, int status) {
        List<Event> list = events.computeIfAbsent(id, k -> new ArrayList<>());
        synchronized (list) {
            list.add(new Event(value, status / 100 == 2, phase));
        }
    }

    Set<String> ids() {
        return events.keySet();
    }

    /** The outcome of a write as a read sees it: the value, or null (404) for a delete. */
    private static String outcome(byte[] value) {
        return value == null ? null : new String(value, StandardCharsets.US_ASCII);
    }

    /** Key facts before T0: its last acknowledged write, and the unacknowledged ones after it. */
    record Expectation(boolean writtenBefore, boolean deletedBefore, boolean touchedLater, Set<String> allowed) {}

    /** What a restore of a backup with this history may hold for the key (null in allowed: 404). */
    Expectation expect(String id) {
        List<Event> list = events.getOrDefault(id, List.of());
        List<Event> copy;
        synchronized (list) {
            copy = new ArrayList<>(list);
        }
        int last = -1;
        for (int i = 0; i < copy.size(); i++) {
            if (copy.get(i).phase() == Phase.BEFORE && copy.get(i).acked()) {
                last = i;
            }
        }
        Set<String> allowed = new HashSet<>();
        boolean later = false;
        if (last < 0) {
            allowed.add(null);
        } else {
            allowed.add(outcome(copy.get(last).value()));
        }
        for (int i = Math.max(0, last + 1); i < copy.size(); i++) {
            Event e = copy.get(i);
            if (e.phase() == Phase.BEFORE || e.phase() == Phase.WINDOW) {
                allowed.add(outcome(e.value()));
                later = true;
            }
        }
        boolean written = last >= 0;
        return new Expectation(written, written && copy.get(last).value() == null, later, allowed);
    }

    /** Every value ever written to the key before the backup ended (a scan may show any of these, no other). */
    Set<String> possibleValues(String id) {
        Set<String> out = new HashSet<>();
        List<Event> list = events.getOrDefault(id, List.of());
        synchronized (list) {
            for (Event e : list) {
                if (e.phase() != Phase.AFTER && e.value() != null) {
                    out.add(outcome(e.value()));
                }
            }
        }
        return out;
    }

    /** Outcomes that broke the expectations, by kind, with a few examples each. */
    static final class Violations {
        final Map<String, List<String>> byKind = new TreeMap<>();
        final Map<String, Integer> counts = new TreeMap<>();

        void add(String kind, String example) {
            counts.merge(kind, 1, Integer::sum);
            List<String> ex = byKind.computeIfAbsent(kind, k -> new ArrayList<>());
            if (ex.size() < 5) {
                ex.add(example);
            }
        }

        boolean none() {
            return counts.isEmpty();
        }

        @Override
        public String toString() {
            return counts + " e.g. " + byKind;
        }
    }

    static String show(byte[] b) {
        return b == null ? "404" : Arrays.toString(Arrays.copyOf(b, Math.min(b.length, 24)));
    }
}
