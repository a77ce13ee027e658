package dev.dht.node.http;

import java.util.function.IntSupplier;

/**
 * Where the cluster size and replication factor for {@link Replicas#parse} come from. The standalone node of this
 * version serves every key itself, so it validates against a cluster of one; the cluster version plugs in the
 * live member count here and nothing in parsing changes.
 */
public record ReplicasPolicy(IntSupplier clusterSize, int replicationFactor) {

    public static ReplicasPolicy standalone() {
        return new ReplicasPolicy(() -> 1, 1);
    }

    public Replicas parse(String param) throws BadRequestException {
        return Replicas.parse(param, clusterSize.getAsInt(), replicationFactor);
    }
}
