package dev.dht.node.cluster;

import static org.awaitility.Awaitility.await;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.json.Json;
import dev.dht.node.support.MemberTlsMode;
import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Node processes (the packaged jar) on loopback that read their members from a cluster file, as in Kubernetes:
 * the members are the first n of up to {@code capacity} nodes whose ports are fixed up front, and the tests change
 * n by rewriting the file (atomically, as the kubelet swaps a ConfigMap). A node may get its own copy of the file
 * to lag behind the others. Each node's output goes to one log file ({@link NodeLogs}).
 */
final class ScalingCluster implements AutoCloseable {
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final int[] ports;
    private final List<String> urls;
    private final IntFunction<List<String>> extraArgs;
    private final NodeLogs logs;
    private final NodeProcess[] processes;
    private final Path sharedFile;
    private final Set<Integer> ownFile = new HashSet<>();
    /** The rack of node i in the files written from now on (null: no racks). */
    private volatile IntFunction<String> racks;

    /** @param extraArgs node i's options beyond port, data directory, cluster file and --self */
    ScalingCluster(Path dir, int capacity, IntFunction<List<String>> extraArgs) {
        this.dir = dir;
        this.ports = new int[capacity];
        Set<Integer> seen = new HashSet<>();
        List<String> list = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            int port;
            do {
                port = TestNode.freePort();
            } while (!seen.add(port));
            ports[i] = port;
            list.add("http://localhost:" + port);
        }
        this.urls = List.copyOf(list);
        this.extraArgs = extraArgs;
        this.logs = new NodeLogs(dir.resolve("logs"), urls);
        this.processes = new NodeProcess[capacity];
        this.sharedFile = dir.resolve("members");
    }

    /** A scenario on a cluster of this capacity, closed after it; what the nodes logged is printed if it fails. */
    interface Scenario {
        void run(ScalingCluster c) throws Exception;
    }

    static void run(Path dir, int capacity, IntFunction<List<String>> extraArgs, Scenario scenario) throws Exception {
        try (ScalingCluster c = new ScalingCluster(dir, capacity, extraArgs)) {
            long[] logStart = c.logs().lengths();
            try {
                scenario.run(c);
            } catch (Throwable t) {
                System.err.println("==== what the nodes logged:\n" + c.logs().since(logStart));
                throw t;
            }
        }
    }

    String url(int i) {
        return urls.get(i);
    }

    /** The first n members, canonical and sorted (what /v0/admin/movement reports). */
    List<String> firstMembers(int n) {
        return ClusterMembers.of(urls.subList(0, n)).urls();
    }

    /** The first n members with their racks (when the files name racks). */
    ClusterMembers members(int n) {
        return ClusterMembers.parseList(String.join(",", entries(n)));
    }

    private List<String> entries(int n) {
        IntFunction<String> r = racks;
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(r == null ? urls.get(i) : r.apply(i) + "=" + urls.get(i));
        }
        return out;
    }

    /** The shared file lists the first n nodes, node i in rack racks(i) (null: no racks). */
    void setMembers(int n, IntFunction<String> rackOf) {
        racks = rackOf;
        setMembers(n);
    }

    /** The proposer of the set of the first n: its first member in sorted order. */
    int proposerOf(int n) {
        return urls.indexOf(firstMembers(n).get(0));
    }

    private Path fileOf(int i) {
        return ownFile.contains(i) ? dir.resolve("members-" + i) : sharedFile;
    }

    /** The shared file lists the first n nodes (nodes with their own copy do not see it). */
    void setMembers(int n) {
        write(sharedFile, n);
        logs.harnessLine(0, "cluster file: first " + n + " nodes");
    }

    /** From now on node i reads its own copy of the file, which lists the first n. */
    void giveOwnFile(int i, int n) {
        ownFile.add(i);
        write(fileOf(i), n);
    }

    /** Node i's own copy now lists the first n (it catches up). */
    void setMembersOf(int i, int n) {
        write(fileOf(i), n);
        logs.harnessLine(i, "node " + i + "'s own cluster file: first " + n + " nodes");
    }

    private void write(Path file, int n) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, String.join("\n", entries(n)) + "\n");
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts these nodes at once; waits until their HTTP server answers (not until they have a topology). */
    void start(int... nodes) {
        List<NodeProcess> started = new ArrayList<>();
        for (int i : nodes) {
            if (processes[i] != null) {
                throw new IllegalStateException("node " + i + " is already running");
            }
            List<String> args = new ArrayList<>(List.of(
                    "--port",
                    String.valueOf(ports[i]),
                    "--data-dir",
                    dir.resolve("node" + i).toString(),
                    "--cluster-file",
                    fileOf(i).toString(),
                    "--self",
                    url(i)));
            args.addAll(extraArgs.apply(i));
            args.addAll(MemberTlsMode.args(dir, i, args));
            logs.harnessLine(i, "starting node " + i + " " + args);
            processes[i] = NodeProcess.start(logs.dir(), logs.name(i), ports[i], args, Map.of());
            started.add(processes[i]);
        }
        started.forEach(NodeProcess::awaitReady);
    }

    boolean isRunning(int i) {
        return processes[i] != null;
    }

    NodeProcess process(int i) {
        NodeProcess p = processes[i];
        if (p == null) {
            throw new IllegalStateException("node " + i + " is stopped");
        }
        return p;
    }

    EntityClient node(int i) {
        return new EntityClient(process(i));
    }

    /** SIGTERM, waiting for a clean exit. */
    void stop(int i) {
        NodeProcess p = process(i);
        p.terminate();
        try {
            p.awaitExit(STOP_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        p.close();
        processes[i] = null;
        logs.harnessLine(i, "node " + i + " stopped");
    }

    /** SIGKILL: nothing of the node's shutdown runs. */
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
        logs.harnessLine(i, "node " + i + " killed (SIGKILL)");
    }

    /** GET /v0/admin/movement of node i, parsed. */
    Map<String, Object> movement(int i) {
        try {
            var r = process(i).get("/v0/admin/movement");
            if (r.statusCode() != 200) {
                throw new AssertionError("movement of node " + i + " answered " + r.statusCode());
            }
            return Json.parseObject(new String(r.body(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The operator's test: idle, stable, and serving exactly the first n (in their racks). */
    boolean idleWith(int i, int n) {
        Map<String, Object> m = movement(i);
        Map<?, ?> t = (Map<?, ?>) m.get("topology");
        return "idle".equals(m.get("state"))
                && "stable".equals(t.get("phase"))
                && firstMembers(n).equals(t.get("members"))
                && members(n).racks().equals(t.get("racks"));
    }

    /** Waits until every given node is idle with the first n as members. */
    void awaitIdle(List<Integer> nodes, int n, Duration atMost) {
        await().atMost(atMost)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .until(() -> nodes.stream().allMatch(i -> idleWith(i, n)));
    }

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

    NodeLogs logs() {
        return logs;
    }

    /** Kills whatever still runs. */
    @Override
    public void close() {
        for (int i = 0; i < processes.length; i++) {
            if (processes[i] != null) {
                processes[i].close();
                processes[i] = null;
            }
        }
    }
}
