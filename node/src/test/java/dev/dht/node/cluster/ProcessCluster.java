package dev.dht.node.cluster;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.release.FeatureLevel;
import dev.dht.node.ring.Ring;
import dev.dht.node.support.MemberTlsMode;
import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * N node processes (the packaged jar) forming one cluster on loopback, each with its own port and data directory,
 * stopped and started again by the tests (the course's stop(i)/start(i)). Every member's port is fixed up front,
 * so a node comes back as the same member with the same data.
 *
 * <p>Each node gets the member list in its own order (rotated, every other one reversed): the ring must not
 * depend on it. Each node's output, over all its restarts, goes to one file ({@link NodeLogs}).
 */
final class ProcessCluster implements AutoCloseable {
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final int[] ports;
    private final List<String> urls;
    /** Each member's entry in the member list: its URL, or RACK=URL. */
    private final List<String> entries;

    private final Ring ring;
    private final IntFunction<List<String>> extraArgs;
    private final NodeLogs logs;
    private final NodeProcess[] processes;
    /** The jar each node runs from its next start (null: this build's; another release's in upgrade tests). */
    private final Path[] jars;

    private final boolean racked;
    /** How long a starting node may take to be ready (60 s unless a test says otherwise). */
    private final Duration readyBound;
    /** How the tests call the client ports: over TLS with this context, or plaintext (null). */
    private javax.net.ssl.SSLContext clientTls;

    private ProcessCluster(
            Path dir, int size, IntFunction<List<String>> extraArgs, Duration readyBound, IntFunction<String> racks) {
        this.dir = dir;
        this.readyBound = readyBound;
        this.ports = distinctFreePorts(size);
        List<String> list = new ArrayList<>();
        for (int port : ports) {
            list.add("http://localhost:" + port);
        }
        this.urls = List.copyOf(list);
        List<String> named = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            named.add(racks == null ? urls.get(i) : racks.apply(i) + "=" + urls.get(i));
        }
        this.entries = List.copyOf(named);
        ClusterMembers members = ClusterMembers.parseList(String.join(",", entries));
        this.ring = new Ring(members.urls(), members.racks());
        this.extraArgs = extraArgs;
        this.logs = new NodeLogs(dir.resolve("logs"), urls);
        this.processes = new NodeProcess[size];
        this.jars = new Path[size];
        this.racked = racks != null;
    }

    /** Node i runs this jar from its next start on (null: this build's). */
    void runJar(int i, Path jar) {
        jars[i] = jar;
    }

    /** Starts every node at once and returns when all of them are ready. */
    static ProcessCluster start(Path dir, int size, IntFunction<List<String>> extraArgs) {
        return start(dir, size, extraArgs, Duration.ofSeconds(60));
    }

    /** As {@link #start(Path, int, IntFunction)}; each start, now and later, may take up to readyBound. */
    static ProcessCluster start(Path dir, int size, IntFunction<List<String>> extraArgs, Duration readyBound) {
        return start(dir, size, extraArgs, readyBound, null);
    }

    /** As {@link #start(Path, int, IntFunction)}, the client ports called over TLS with this context. */
    static ProcessCluster startTls(
            Path dir, int size, IntFunction<List<String>> extraArgs, javax.net.ssl.SSLContext clientTls) {
        ProcessCluster cluster = new ProcessCluster(dir, size, extraArgs, Duration.ofSeconds(60), null);
        cluster.clientTls = clientTls;
        return started(cluster);
    }

    /** As {@link #start(Path, int, IntFunction, Duration)}, node i in rack racks(i) (null: no racks). */
    static ProcessCluster start(
            Path dir, int size, IntFunction<List<String>> extraArgs, Duration readyBound, IntFunction<String> racks) {
        return started(new ProcessCluster(dir, size, extraArgs, readyBound, racks));
    }

    private static ProcessCluster started(ProcessCluster cluster) {
        try {
            cluster.startStopped();
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** The client ports are called with this TLS context from now on (a new client certificate, new CAs). */
    synchronized void useClientTls(javax.net.ssl.SSLContext context) {
        clientTls = context;
        for (NodeProcess p : processes) {
            if (p != null) {
                p.useTls(context);
            }
        }
    }

    /** As {@link #start(Path, int, IntFunction)}, node i running the jar jars(i) (another release's: upgrades). */
    static ProcessCluster startRunning(
            Path dir, int size, IntFunction<List<String>> extraArgs, IntFunction<Path> jars) {
        ProcessCluster cluster = new ProcessCluster(dir, size, extraArgs, Duration.ofSeconds(60), null);
        try {
            for (int i = 0; i < size; i++) {
                cluster.runJar(i, jars.apply(i));
            }
            cluster.startStopped();
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private static int[] distinctFreePorts(int n) {
        Set<Integer> seen = new HashSet<>();
        int[] ports = new int[n];
        for (int i = 0; i < n; i++) {
            int port;
            do {
                port = TestNode.freePort();
            } while (!seen.add(port));
            ports[i] = port;
        }
        return ports;
    }

    int size() {
        return ports.length;
    }

    /** The members (with their racks) as every node is told them. */
    ClusterMembers members() {
        return ClusterMembers.parseList(String.join(",", entries));
    }

    String url(int i) {
        return urls.get(i);
    }

    /** The API of node i, which must be running. */
    EntityClient node(int i) {
        return new EntityClient(process(i));
    }

    NodeProcess process(int i) {
        NodeProcess p = processes[i];
        if (p == null) {
            throw new IllegalStateException("node " + i + " is stopped");
        }
        return p;
    }

    boolean isRunning(int i) {
        return processes[i] != null;
    }

    /**
     * The nodes that hold a key's copies for this {@code from}, by the node's own ring. Tests use it only to pick
     * keys (e.g. one whose coordinator is not a replica) and to name where the copies they count must be.
     */
    List<Integer> replicasOf(String id, int from) {
        List<Integer> nodes = new ArrayList<>();
        for (String member : ring.replicasFor(id.getBytes(StandardCharsets.UTF_8), from)) {
            nodes.add(urls.indexOf(member));
        }
        return nodes;
    }

    /** A fresh id whose replicas for this {@code from} are placed as the test needs (e.g. not on node 0). */
    String randomIdPlaced(int from, Predicate<List<Integer>> placement) {
        while (true) {
            String id = TestData.randomId();
            if (placement.test(replicasOf(id, from))) {
                return id;
            }
        }
    }

    /** The member list as node i is told it: rotated by i, reversed for odd i. */
    private String membersAsSeenBy(int i) {
        List<String> list = new ArrayList<>(entries);
        Collections.rotate(list, -i);
        if (i % 2 == 1) {
            Collections.reverse(list);
        }
        return String.join(",", list);
    }

    /** Node i again, as a member of the whole cluster; waits until it is ready. */
    void start(int i) {
        launch(i).awaitReady(readyBound);
    }

    /** Starts every stopped node at once and waits until all of them are ready. */
    void startStopped() {
        List<NodeProcess> started = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
            if (processes[i] == null) {
                started.add(launch(i));
            }
        }
        started.forEach(p -> p.awaitReady(readyBound));
    }

    private NodeProcess launch(int i) {
        if (processes[i] != null) {
            throw new IllegalStateException("node " + i + " is already running");
        }
        processes[i] = spawn(i, membersAsSeenBy(i));
        return processes[i];
    }

    /**
     * Node i on its own data directory and port as a one-member cluster: every GET is answered from its local
     * store only, so a 200 means this node holds a copy. Node i must be stopped; the caller closes the process.
     */
    NodeProcess startAlone(int i) {
        if (processes[i] != null) {
            throw new IllegalStateException("node " + i + " is running; stop it first");
        }
        NodeProcess alone = spawn(i, entries.get(i));
        try {
            return alone.awaitReady();
        } catch (RuntimeException | Error e) {
            alone.close();
            throw e;
        }
    }

    private NodeProcess spawn(int i, String members) {
        List<String> args = new ArrayList<>(List.of(
                "--port",
                String.valueOf(ports[i]),
                "--data-dir",
                dir.resolve("node" + i).toString(),
                "--cluster",
                members));
        if (racked) { // racks in the member list need the feature level that has them
            args.addAll(List.of("--feature-level", String.valueOf(FeatureLevel.RACKS)));
        }
        args.addAll(extraArgs.apply(i));
        args.addAll(MemberTlsMode.args(dir, i, args));
        logs.harnessLine(i, "starting node " + i + (jars[i] == null ? "" : " of " + jars[i]) + " " + args);
        NodeProcess p = NodeProcess.start(logs.dir(), logs.name(i), ports[i], args, Map.of(), jars[i]);
        return clientTls == null ? p : p.useTls(clientTls);
    }

    /** Deletes node i's data directory, as a lost volume: node i must be stopped; it starts on a new one. */
    void wipe(int i) {
        if (processes[i] != null) {
            throw new IllegalStateException("node " + i + " is running; stop it first");
        }
        Path data = dir.resolve("node" + i);
        logs.harnessLine(i, "wiping " + data);
        try (var paths = java.nio.file.Files.walk(data)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGTERM, as the course's stop(i): the node shuts down cleanly. */
    void stop(int i) {
        NodeProcess p = process(i);
        p.terminate();
        awaitExit(p);
        p.close();
        processes[i] = null;
    }

    /** SIGKILL: no shutdown code runs; writes in flight are cut. */
    void kill(int i) {
        NodeProcess p = process(i);
        try {
            p.kill9();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        p.close();
        processes[i] = null;
    }

    /** SIGTERM to every running node at once, then waits for all of them. */
    void stopAll() {
        List<Integer> running = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
            if (processes[i] != null) {
                processes[i].terminate();
                running.add(i);
            }
        }
        for (int i : running) {
            awaitExit(processes[i]);
            processes[i].close();
            processes[i] = null;
        }
    }

    private static void awaitExit(NodeProcess p) {
        try {
            p.awaitExit(STOP_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An unlabelled sample of node i's /metrics. */
    double metric(int i, String name) {
        try {
            return process(i).metric(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The sum of a metric over these (running) nodes. */
    double metricSum(String name, int... nodes) {
        double sum = 0;
        for (int i : nodes) {
            sum += metric(i, name);
        }
        return sum;
    }

    NodeLogs logs() {
        return logs;
    }

    /** Kills whatever still runs. */
    @Override
    public void close() {
        for (NodeProcess p : processes) {
            if (p != null) {
                p.process().destroyForcibly();
            }
        }
        for (int i = 0; i < size(); i++) {
            if (processes[i] != null) {
                processes[i].close();
                processes[i] = null;
            }
        }
    }
}
