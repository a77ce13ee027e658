package dev.dht.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigParserTest {

    private static NodeConfig parse(Map<String, String> env, String... args) throws Exception {
        return ConfigParser.parse(List.of(args), env);
    }

    @Test
    void theDefaultBlockCacheIsAFifthOfMemoryInWholeMiBAndAtLeast64MiB() {
        long memory = NodeConfig.memoryBytes();
        assertThat(memory)
                .as("the JDK reports this machine's (or container's) memory")
                .isPositive();
        long cache = NodeConfig.defaultBlockCache();
        assertThat(cache % (1L << 20)).isZero();
        assertThat(cache).isGreaterThanOrEqualTo(64L << 20);
        if (memory / 5 >= (64L << 20)) {
            assertThat(cache).isBetween(memory / 5 - (1L << 20), memory / 5);
        } else {
            assertThat(cache).isEqualTo(64L << 20);
        }
    }

    @Test
    void defaultsFollowTheContract() throws Exception {
        NodeConfig c = parse(Map.of());
        assertThat(c.port()).isEqualTo(8080);
        assertThat(c.dataDir()).isEqualTo(Path.of("./data"));
        assertThat(c.members().urls()).containsExactly("http://localhost:8080");
        assertThat(c.self()).isEqualTo("http://localhost:8080");
        assertThat(c.replicationFactor()).isZero();
        assertThat(c.requestTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.maxBody()).isEqualTo(16L << 20);
        assertThat(c.blockCache()).isEqualTo(NodeConfig.defaultBlockCache());
        assertThat(c.tombstoneGrace()).isEqualTo(Duration.ofDays(1));
        assertThat(c.workers()).isEqualTo(NodeConfig.defaultWorkers());
        assertThat(c.selectors()).isEqualTo(NodeConfig.defaultSelectors());
        assertThat(c.clusterFile()).isNull();
        assertThat(c.profileDir()).isNull();
    }

    @Test
    void everyOptionParses() throws Exception {
        NodeConfig c = parse(
                Map.of(),
                "--port",
                "9000",
                "--data-dir",
                "/tmp/x",
                "--cluster",
                "http://localhost:9000,http://h2:9000",
                "--replication-factor",
                "2",
                "--request-timeout",
                "500ms",
                "--workers",
                "3",
                "--queue-size",
                "7",
                "--selectors",
                "1",
                "--max-body",
                "1Mi",
                "--block-cache",
                "256Mi",
                "--write-buffer=32MiB",
                "--profile-dir",
                "/tmp/p",
                "--tombstone-grace",
                "2h",
                "--idle-timeout",
                "5s",
                "--send-timeout",
                "6s",
                "--shutdown-grace",
                "7s",
                "--member-insecure",
                "true",
                "--member-port-offset",
                "-1000",
                "--max-clock-ahead",
                "10s");
        assertThat(c.port()).isEqualTo(9000);
        assertThat(c.dataDir()).isEqualTo(Path.of("/tmp/x"));
        assertThat(c.members().size()).isEqualTo(2);
        assertThat(c.self()).isEqualTo("http://localhost:9000");
        assertThat(c.replicationFactor()).isEqualTo(2);
        assertThat(c.requestTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.workers()).isEqualTo(3);
        assertThat(c.queueSize()).isEqualTo(7);
        assertThat(c.selectors()).isEqualTo(1);
        assertThat(c.maxBody()).isEqualTo(1L << 20);
        assertThat(c.blockCache()).isEqualTo(256L << 20);
        assertThat(c.writeBuffer()).isEqualTo(32L << 20);
        assertThat(c.profileDir()).isEqualTo(Path.of("/tmp/p"));
        assertThat(c.tombstoneGrace()).isEqualTo(Duration.ofHours(2));
        assertThat(parse(Map.of(), "--move-batch", "4MiB", "--max-body", "2MiB")
                        .cluster()
                        .moveBatch())
                .as("a batch is a request body: at most half of --max-body")
                .isEqualTo(1 << 20);
        assertThat(c.idleTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.sendTimeout()).isEqualTo(Duration.ofSeconds(6));
        assertThat(c.shutdownGrace()).isEqualTo(Duration.ofSeconds(7));
        assertThat(c.security().memberInsecure()).isTrue();
        assertThat(c.memberPort()).isEqualTo(8000);
        assertThat(c.security().maxClockAhead()).isEqualTo(Duration.ofSeconds(10));
        assertThat(parse(Map.of()).security().maxClockAhead()).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> parse(Map.of(), "--max-clock-ahead", "0ms"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("100ms..1d");
    }

    @Test
    void theMemberPortIsOnLoopbackUnlessMembersElsewhereMayReachIt() throws Exception {
        NodeConfig local =
                parse(Map.of(), "--port", "8081", "--cluster", "http://localhost:8080,http://127.0.0.1:8081");
        assertThat(local.memberPort()).isEqualTo(18081);
        assertThat(local.security().memberInsecure()).isFalse();
        assertThatThrownBy(() -> parse(Map.of(), "--cluster", "http://localhost:8080,http://10.0.0.2:8080"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("http://10.0.0.2:8080")
                .hasMessageContaining("--member-insecure");
        assertThat(parse(Map.of("DHT_MEMBER_INSECURE", "true"), "--cluster", "http://localhost:8080,http://b:8080")
                        .security()
                        .memberInsecure())
                .isTrue();
        assertThatThrownBy(() -> parse(Map.of(), "--port", "60000"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("outside 1..65535");
        assertThatThrownBy(() -> parse(Map.of(), "--member-port-offset", "0"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("must not be 0");
    }

    @Test
    void theClientPortTakesTlsWithOptionalClientCertificatesAndAMetricsPort() throws Exception {
        assertThat(parse(Map.of()).security().clientTls())
                .as("plaintext by default")
                .isNull();
        assertThat(parse(Map.of()).security().metricsPort()).isZero();
        NodeConfig serverOnly = parse(
                Map.of(),
                "--client-tls-cert",
                "/c/tls.crt",
                "--client-tls-key",
                "/c/tls.key",
                "--metrics-port",
                "9090");
        assertThat(serverOnly.security().clientTls())
                .isEqualTo(new SecuritySettings.ClientTlsFiles(
                        Path.of("/c/tls.crt"), Path.of("/c/tls.key"), null, SecuritySettings.ClientCertificates.NONE));
        assertThat(serverOnly.security().metricsPort()).isEqualTo(9090);
        NodeConfig required = parse(
                Map.of("DHT_CLIENT_TLS_CA", "/c/ca.crt"),
                "--client-tls-cert",
                "/c/tls.crt",
                "--client-tls-key",
                "/c/tls.key");
        assertThat(required.security().clientTls().certificates())
                .as("with the CAs of client certificates, they are required unless said otherwise")
                .isEqualTo(SecuritySettings.ClientCertificates.REQUIRED);
        assertThat(parse(
                                Map.of(),
                                "--client-tls-cert",
                                "/c/tls.crt",
                                "--client-tls-key",
                                "/c/tls.key",
                                "--client-tls-ca",
                                "/c/ca.crt",
                                "--client-auth",
                                "optional")
                        .security()
                        .clientTls()
                        .certificates())
                .isEqualTo(SecuritySettings.ClientCertificates.OPTIONAL);
        assertBad("both --client-tls-cert and --client-tls-key", "--client-tls-cert", "/c/tls.crt");
        assertBad("need TLS on the client port", "--client-tls-ca", "/c/ca.crt");
        assertBad(
                "--client-auth needs --client-tls-ca",
                "--client-tls-cert",
                "/c/tls.crt",
                "--client-tls-key",
                "/c/tls.key",
                "--client-auth",
                "required");
        assertBad(
                "'sometimes' is not required or optional",
                "--client-tls-cert",
                "/c/tls.crt",
                "--client-tls-key",
                "/c/tls.key",
                "--client-tls-ca",
                "/c/ca.crt",
                "--client-auth",
                "sometimes");
        assertBad("is the client or the member port", "--metrics-port", "8080");
        assertBad("is the client or the member port", "--metrics-port", "18080");
    }

    @Test
    void environmentGivesEverySettingAndTheCommandLineWins() throws Exception {
        Map<String, String> env = Map.of(
                "DHT_PORT",
                "7000",
                "DHT_DATA_DIR",
                "/env/dir",
                "DHT_CLUSTER",
                "http://localhost:7000,http://localhost:7001",
                "DHT_MAX_BODY",
                "2k");
        NodeConfig fromEnv = parse(env);
        assertThat(fromEnv.port()).isEqualTo(7000);
        assertThat(fromEnv.dataDir()).isEqualTo(Path.of("/env/dir"));
        assertThat(fromEnv.members().size()).isEqualTo(2);
        assertThat(fromEnv.maxBody()).isEqualTo(2048);

        NodeConfig overridden = parse(env, "--port", "7001", "--max-body", "4k");
        assertThat(overridden.port()).isEqualTo(7001);
        assertThat(overridden.self()).isEqualTo("http://localhost:7001");
        assertThat(overridden.maxBody()).isEqualTo(4096);
        assertThat(overridden.dataDir()).isEqualTo(Path.of("/env/dir"));
    }

    @Test
    void everyOptionHasItsEnvironmentVariable() {
        for (NodeOption o : NodeOption.values()) {
            assertThat(o.env()).startsWith("DHT_").doesNotContain("-");
            if (o.testOnly()) {
                assertThat(ConfigParser.help()).doesNotContain(o.flag()).doesNotContain(o.env());
            } else {
                assertThat(ConfigParser.help()).contains(o.flag()).contains(o.env());
            }
        }
        assertThat(NodeOption.DATA_DIR.env()).isEqualTo("DHT_DATA_DIR");
    }

    @Test
    void selfIsExplicitOrTheLocalMember() throws Exception {
        assertThat(parse(Map.of(), "--port", "8081", "--cluster", "http://127.0.0.1:8081,http://localhost:8080")
                        .self())
                .isEqualTo("http://127.0.0.1:8081");
        assertThat(parse(
                                Map.of(),
                                "--cluster",
                                "http://pod-0.svc:8080,http://pod-1.svc:8080",
                                "--self",
                                "http://pod-1.svc:8080",
                                "--member-insecure",
                                "true")
                        .self())
                .isEqualTo("http://pod-1.svc:8080");
        assertThatThrownBy(() -> parse(Map.of(), "--cluster", "http://pod-0.svc:8080"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--self");
    }

    @Test
    void clusterFileIsReadAtStart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("members");
        Files.writeString(file, "http://localhost:8080\n# comment\nhttp://other:8080\n");
        NodeConfig c = parse(Map.of("DHT_CLUSTER_FILE", file.toString(), "DHT_MEMBER_INSECURE", "true"));
        assertThat(c.clusterFile()).isEqualTo(file);
        assertThat(c.members().urls()).containsExactly("http://localhost:8080", "http://other:8080");

        assertThatThrownBy(() ->
                        parse(Map.of(), "--cluster-file", dir.resolve("missing").toString()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("cannot read");
        assertThatThrownBy(
                        () -> parse(Map.of(), "--cluster-file", file.toString(), "--cluster", "http://localhost:8080"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("either");
    }

    @Test
    void badInputIsOneClearLine() {
        assertBad("unknown option '--nope'", "--nope", "1");
        assertBad("unexpected argument 'stray'", "stray");
        assertBad("needs a value", "--port");
        assertBad("'x' is not a whole number", "--port", "x");
        assertBad("outside 1..65535", "--port", "70000");
        assertBad("--move-batch (DHT_MOVE_BATCH)", "--move-batch", "9MiB");
        assertBad("--move-rate (DHT_MOVE_RATE)", "--move-rate", "lots");
        assertBad("outside 1..4096", "--workers", "0");
        assertBad("not a size", "--max-body", "lots");
        assertBad("not a duration", "--request-timeout", "1");
        assertBad("not an http:// base URL", "--cluster", "ftp://a:1");
        assertBad("timeouts must be positive", "--idle-timeout", "0s");
        assertBad("'maybe' is not true or false", "--hints", "maybe");
        assertBad("--hint-interval (DHT_HINT_INTERVAL): must be positive", "--hint-interval", "0s");
        assertBad("not a size", "--hint-max-bytes", "many");
        assertBad("outside -86400000..86400000", "--clock-offset-ms", "90000000");
    }

    @Test
    void clusterSettingsHaveDefaultsAndComeFromFlagsOrEnvironment() throws Exception {
        NodeConfig defaults = parse(Map.of());
        assertThat(defaults.cluster()).isEqualTo(ClusterSettings.defaults());
        assertThat(defaults.cluster().hints()).isTrue();
        assertThat(defaults.cluster().hintMaxAge()).isEqualTo(Duration.ofHours(3));
        assertThat(defaults.cluster().hintMaxBytes()).isEqualTo(256L << 20);
        assertThat(defaults.cluster().hintInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.cluster().clockOffsetMs()).isZero();
        assertThat(defaults.tombstoneGrace()).isEqualTo(Duration.ofDays(1));

        assertThat(defaults.cluster().moveRate()).isEqualTo(8L << 20);
        assertThat(defaults.cluster().moveBatch()).isEqualTo(256 << 10);

        assertThat(defaults.cluster().repairInterval()).isEqualTo(Duration.ofHours(6));
        assertThat(defaults.cluster().repairRate()).isEqualTo(4L << 20);

        NodeConfig c = parse(
                Map.of(
                        "DHT_HINTS",
                        "false",
                        "DHT_CLOCK_OFFSET_MS",
                        "-250",
                        "DHT_MOVE_RATE",
                        "1MiB",
                        "DHT_REPAIR_RATE",
                        "2MiB"),
                "--hint-max-age",
                "10m",
                "--hint-max-bytes",
                "1MiB",
                "--hint-interval",
                "200ms",
                "--tombstone-grace",
                "2h",
                "--move-batch",
                "64KiB",
                "--repair-interval",
                "30m");
        assertThat(c.cluster())
                .isEqualTo(new ClusterSettings(
                        false,
                        Duration.ofMinutes(10),
                        1L << 20,
                        Duration.ofMillis(200),
                        -250,
                        1L << 20,
                        64 << 10,
                        Duration.ofMinutes(30),
                        2L << 20));
        assertThat(c.tombstoneGrace()).isEqualTo(Duration.ofHours(2));
        assertThat(parse(Map.of(), "--move-batch", "4MiB", "--max-body", "2MiB")
                        .cluster()
                        .moveBatch())
                .as("a batch is a request body: at most half of --max-body")
                .isEqualTo(1 << 20);
        assertThat(ConfigParser.help())
                .as("a test hook, not for users")
                .doesNotContain("--clock-offset-ms")
                .doesNotContain("TEST ONLY")
                .contains("--hints");
    }

    private static void assertBad(String message, String... args) {
        assertThatThrownBy(() -> parse(Map.of(), args))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void helpIsNotAnError() {
        assertThatThrownBy(() -> parse(Map.of(), "--port", "1", "--help"))
                .isInstanceOf(ConfigParser.HelpRequested.class);
        assertThat(ConfigParser.help())
                .contains("default: 8080")
                .contains("default: 16MiB")
                .contains("--help");
    }

    @Test
    void aDeclaredRackMustAgreeWithTheMemberList() throws Exception {
        String list = "zone-a=http://localhost:8080,zone-b=http://localhost:8081";
        assertThat(parse(Map.of(), "--cluster", list).rack()).isEqualTo(RackSettings.NONE);
        NodeConfig agreed = parse(Map.of("DHT_RACK", "zone-a", "DHT_ACCEPT_RACK_CHANGE", "true"), "--cluster", list);
        assertThat(agreed.rack()).isEqualTo(new RackSettings("zone-a", true));
        assertThat(agreed.members().rackOf("http://localhost:8080")).isEqualTo("zone-a");
        assertThatThrownBy(() -> parse(Map.of(), "--cluster", list, "--rack", "zone-b"))
                .hasMessageContaining("declares rack 'zone-b' (--rack (DHT_RACK))")
                .hasMessageContaining("the member list puts it in rack 'zone-a'");
        assertThat(parse(Map.of(), "--rack", "zone-c").rack().declared())
                .as("a list without racks places by member; the declaration is kept")
                .isEqualTo("zone-c");
        assertThatThrownBy(() -> parse(Map.of(), "--rack", "Zone C")).hasMessageContaining("is not a DNS label");
        assertThatThrownBy(() -> parse(Map.of(), "--cluster", "zone-a=http://localhost:8080,http://localhost:8081"))
                .hasMessageContaining("either every member entry names a rack");
    }
}
