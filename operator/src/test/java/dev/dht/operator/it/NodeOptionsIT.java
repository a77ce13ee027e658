package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.JvmSpec;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import dev.dht.operator.api.v1alpha1.ReplicationSpec;
import dev.dht.operator.api.v1alpha1.RocksDbSpec;
import dev.dht.operator.api.v1alpha1.ServerSpec;
import dev.dht.operator.api.v1alpha1.TlsMode;
import dev.dht.operator.api.v1alpha1.TlsSpec;
import dev.dht.operator.model.Clusters;
import dev.dht.operator.testing.Repo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operator writes the node's options as {@code DHT_*} environment names and command-line flags; the node
 * reads them by its own option table. This fails when either side renames an option. The node's side is read
 * from {@code java -jar dht-node.jar --help} (which lists every flag and its environment name), so the operator
 * does not depend on the node's code. The node jar is built before the operator's tests in the reactor.
 */
class NodeOptionsIT {
    static final Pattern FLAG = Pattern.compile("^  (--[a-z][a-z0-9-]*)\\b", Pattern.MULTILINE);
    static final Pattern ENV = Pattern.compile("\\benv (DHT_[A-Z0-9_]+)\\b");

    @Test
    void everyEnvironmentNameAndFlagTheOperatorWritesIsAnOptionOfTheNode() throws Exception {
        String help = nodeHelp();
        Set<String> nodeEnv = matches(ENV, help);
        Set<String> nodeFlags = matches(FLAG, help);
        assertThat(nodeEnv).as("the node's --help lists its environment names").contains("DHT_PORT", "DHT_DATA_DIR");

        // every optional node setting set (backups, a restore, racks, the profiler), so every name appears
        var desired = Clusters.desired(Clusters.backup(true, true).andThen(s -> {
            s.backup.storage.region = "eu-west-1";
            s.backup.restoreRate = "64Mi";
            s.replicas = 5;
            s.replication = new ReplicationSpec();
            s.replication.factor = 2;
            s.rocksdb = new RocksDbSpec();
            s.rocksdb.blockCacheSize = "256Mi";
            s.rocksdb.writeBufferSize = "32Mi";
            s.server = new ServerSpec();
            s.server.requestTimeout = "500ms";
            s.server.workers = 8;
            s.server.queueSize = 1024;
            s.server.maxBody = "1Mi";
            s.server.tombstoneGrace = "12h";
            s.profiler = new ProfilerSpec();
            s.profiler.enabled = true;
            s.jvm = new JvmSpec();
            s.jvm.heap = "1Gi";
            var rack = new dev.dht.operator.api.v1alpha1.RackSpec(); // DHT_RACK
            rack.name = "zone-a";
            rack.zone = "zone-a";
            s.racks = java.util.List.of(rack);
        }));
        var plaintext = Clusters.desired(
                s -> { // DHT_MEMBER_INSECURE instead of the member TLS files
                    s.tls = new TlsSpec();
                    s.tls.mode = TlsMode.Disabled;
                });
        var operatorEnv = new TreeSet<String>();
        Stream.of(desired, plaintext)
                .flatMap(d -> d.config().getData().keySet().stream())
                .filter(k -> k.startsWith("DHT_"))
                .forEach(operatorEnv::add);
        var container = desired.statefulSet()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0);
        container.getEnv().stream()
                .map(e -> e.getName())
                .filter(n -> n.startsWith("DHT_"))
                .forEach(operatorEnv::add);
        var operatorFlags = new TreeSet<String>();
        container.getArgs().stream().filter(a -> a.startsWith("--")).forEach(operatorFlags::add);

        assertThat(operatorEnv)
                .as("names the operator writes (non-vacuous)")
                .hasSizeGreaterThanOrEqualTo(20)
                .contains(
                        "DHT_SELF",
                        "DHT_BLOCK_CACHE",
                        "DHT_PROFILE_DIR",
                        "DHT_RACK",
                        "DHT_MEMBER_INSECURE",
                        "DHT_BACKUP_ENCRYPTION_KEY",
                        "DHT_BACKUP_REGION",
                        "DHT_RESTORE_RATE",
                        "DHT_RESTORING");
        assertThat(nodeEnv)
                .as("the node's environment names (java -jar dht-node.jar --help)")
                .containsAll(operatorEnv);
        assertThat(operatorFlags).contains("--port", "--data-dir", "--cluster-file");
        assertThat(nodeFlags)
                .as("the node's flags (java -jar dht-node.jar --help)")
                .containsAll(operatorFlags);
    }

    static String nodeHelp() throws Exception {
        Path jar = Repo.path("node/target/dht-node.jar");
        assertThat(jar)
                .as("the node jar, built before the operator's tests (mvn verify from the root)")
                .exists();
        String java = ProcessHandle.current().info().command().orElse("java");
        Process process = new ProcessBuilder(List.of(java, "-jar", jar.toString(), "--help"))
                .redirectErrorStream(true)
                .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        return out;
    }

    static Set<String> matches(Pattern pattern, String text) {
        var found = new TreeSet<String>();
        pattern.matcher(text).results().forEach(m -> found.add(m.group(1)));
        return found;
    }
}
