/**
 * Adaptive replica choice: per-peer memory of recent answers (latency, silence, failures), the state it gives each
 * peer (responsive, slow, avoided), the order a quorum read asks replicas in, its probes of avoided replicas, and
 * the per-peer backup delay. The coordinator ({@code dev.dht.node.replication}) asks; this package only answers.
 * docs/cluster.md, "Choosing replicas".
 */
package dev.dht.node.replication.choice;
