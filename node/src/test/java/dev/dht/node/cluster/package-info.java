/**
 * The multi-process black-box suite of the cluster: real nodes, the packaged jar ({@code node/target/dht-node.jar},
 * {@code -Xmx256m}), on loopback, started, stopped (SIGTERM) and killed (SIGKILL) by the tests and spoken to over
 * HTTP only, with the course's 5 s per request. maven-failsafe runs the {@code *IT} classes after packaging.
 *
 * <p>The course's black-box scenarios (2020/2021 editions), every method:
 * <ul>
 *   <li>{@link dev.dht.node.cluster.ShardingIT}: ShardingTest, two nodes, default replicas (2/2);</li>
 *   <li>{@link dev.dht.node.cluster.TwoNodeIT}: TwoNodeTest;</li>
 *   <li>{@link dev.dht.node.cluster.ThreeNodeIT}: ThreeNodeTest.</li>
 * </ul>
 * Stricter than the course: no 10 ms sleeps between conflicting writes, 504s within 5 s, copies counted with each
 * node restarted alone as a one-member cluster ({@link dev.dht.node.cluster.LocalCopies}), copy counts that name
 * the nodes holding them.
 *
 * <p>Beyond the course: {@link dev.dht.node.cluster.HintedHandoffIT}, {@link dev.dht.node.cluster.ReadRepairIT},
 * {@link dev.dht.node.cluster.KillReplicaUnderLoadIT} (SIGKILL during a write load),
 * {@link dev.dht.node.cluster.ClockSkewIT} and {@link dev.dht.node.cluster.TwoNodeClockSkewIT}
 * ({@code --clock-offset-ms}), {@link dev.dht.node.cluster.WriteOrderIT} (consecutive overlapping writes through
 * different nodes, many times).
 *
 * <p>Harness: {@link dev.dht.node.cluster.ProcessCluster} (the processes; every member gets the member list in
 * its own order), {@link dev.dht.node.cluster.ClusterExtension} (one cluster per test class, every node running
 * before each test, fresh keys per test, the nodes' logs printed when a test fails, every process killed at the
 * end), {@link dev.dht.node.cluster.EntityClient} and {@link dev.dht.node.cluster.Reply} (the API as the contract
 * sees it). Nothing sleeps: readiness and convergence are awaited by polling with generous bounds.
 */
package dev.dht.node.cluster;
