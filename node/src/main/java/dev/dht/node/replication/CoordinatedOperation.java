package dev.dht.node.replication;

import dev.dht.node.http.Responder;

/**
 * What a coordinated read and a coordinated write both hold for one client request, set up once in one place: the
 * key, the replicas of its {@link Topology.Plan}, the topology header its calls carry, its deadline, and the
 * client's responder until it is answered. A superclass rather than a shared object, so that a request still
 * allocates one operation and its hot paths read these fields directly.
 */
abstract class CoordinatedOperation {
    final Coordinator c;
    final byte[] key;
    /** The request target of the replica calls for this key. */
    final String target;

    final String[] urls;
    /** This node's slot in {@link #urls}, or -1 when it holds no copy of the key. */
    final int selfSlot;
    /** The topology header every replica call carries (a replica refuses an older one: 421). */
    final String topology;

    final long deadline;
    /** Null once answered; read and cleared under the operation's monitor. */
    Responder responder;

    CoordinatedOperation(
            Coordinator c, byte[] key, Topology.Plan plan, String topology, long deadline, Responder responder) {
        this.c = c;
        this.key = key;
        this.target = Protocol.entityTarget(key);
        this.urls = plan.urls;
        this.selfSlot = plan.selfSlot;
        this.topology = topology;
        this.deadline = deadline;
        this.responder = responder;
    }
}
