package dev.dht.node.http;

/**
 * The {@code replicas=ack/from} parameter: answer once {@code ack} of {@code from} replicas answered.
 * Parsing depends only on the cluster size and the replication factor, so the single node and the cluster
 * share this code (on a single node the only valid value is 1/1).
 *
 * @param defaulted the request gave no parameter: during a move each member set then uses its own replication
 *                  factor and quorum (docs/cluster.md, "Which replicas, per set")
 */
public record Replicas(int ack, int from, boolean defaulted) {

    /** An explicit ack/from. */
    public Replicas(int ack, int from) {
        this(ack, from, false);
    }

    /** ack = from/2 + 1, the course's quorum. */
    public static int quorum(int from) {
        return from / 2 + 1;
    }

    /**
     * @param param             the raw parameter value, or null when absent
     * @param clusterSize       members that can hold a replica
     * @param replicationFactor default {@code from} (0 = the cluster size); capped by the cluster size
     */
    public static Replicas parse(String param, int clusterSize, int replicationFactor) throws BadRequestException {
        if (param == null) {
            int from = replicationFactor <= 0 ? clusterSize : Math.min(replicationFactor, clusterSize);
            return new Replicas(quorum(from), from, true);
        }
        int slash = param.indexOf('/');
        if (slash <= 0 || slash == param.length() - 1) {
            throw new BadRequestException("replicas must look like ack/from, e.g. 2/3; got '" + param + "'");
        }
        int ack;
        int from;
        try {
            ack = Integer.parseInt(param.substring(0, slash));
            from = Integer.parseInt(param.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new BadRequestException("replicas must look like ack/from, e.g. 2/3; got '" + param + "'");
        }
        if (ack < 1) {
            throw new BadRequestException("replicas: ack must be at least 1; got " + ack);
        }
        if (ack > from) {
            throw new BadRequestException("replicas: ack " + ack + " is larger than from " + from);
        }
        if (from > clusterSize) {
            throw new BadRequestException("replicas: from " + from + " is larger than the cluster (" + clusterSize
                    + (clusterSize == 1 ? " node)" : " nodes)"));
        }
        return new Replicas(ack, from);
    }

    @Override
    public String toString() {
        return ack + "/" + from;
    }
}
