package dev.dht.bench.scale;

import dev.dht.node.config.ClusterMembers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A simulated cluster's member set as the operator names it: pod {@code dht-<i>} (or {@code dht-<rack>-<i>}, one
 * StatefulSet per rack) behind the headless Service; with racks, members are dealt round-robin over {@code racks}
 * racks so the racks' sizes differ by at most one.
 */
record Cluster(int size, int racks) {
    static final String DOMAIN = ".dht-headless.default.svc.cluster.local:8080";

    List<String> urls() {
        List<String> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            out.add(url(i));
        }
        return out;
    }

    String url(int i) {
        return racks == 0 ? "http://dht-" + i + DOMAIN : "http://dht-" + rack(i) + "-" + i / racks + DOMAIN;
    }

    String rack(int i) {
        return "zone-" + (char) ('a' + i % racks);
    }

    /** url -> rack, empty without racks. */
    Map<String, String> rackMap() {
        Map<String, String> out = new LinkedHashMap<>();
        if (racks > 0) {
            for (int i = 0; i < size; i++) {
                out.put(url(i), rack(i));
            }
        }
        return out;
    }

    ClusterMembers members() {
        return ClusterMembers.of(urls(), rackMap());
    }

    /** The same cluster with one member more (the next pod of the next rack in turn). */
    Cluster grown() {
        return new Cluster(size + 1, racks);
    }

    /** The same cluster without its last member (a scale-down removes the highest ordinal). */
    Cluster shrunk() {
        return new Cluster(size - 1, racks);
    }

    String label() {
        return size + (racks == 0 ? "" : " in " + racks + " racks");
    }
}
