package dev.dht.node.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Command line + environment -> {@link NodeConfig}. Every option {@code --some-name} also comes from
 * {@code DHT_SOME_NAME}; the command line beats the environment. Problems are reported as one-line
 * {@link ConfigException}s (NodeMain turns them into exit code 2).
 */
public final class ConfigParser {

    /** Every option with its default as shown by --help. Order = order in --help. */
    public enum Option {
        PORT("port", "N", String.valueOf(NodeConfig.DEFAULT_PORT),
                "client port: the API, /metrics, status; admin operations from loopback"),
        DATA_DIR("data-dir", "PATH", "./data", "RocksDB directory (created if missing)"),
        CLUSTER("cluster", "[RACK=]URL,...", "http://localhost:<port>",
                "every member's base URL, itself included, each with its rack or none; order does not matter"),
        CLUSTER_FILE("cluster-file", "PATH", "-",
                "one [RACK=]URL a line ('#' comments); re-read when its content changes (instead of --cluster)"),
        SELF("self", "URL", "the member on localhost/127.0.0.1 with this port", "which member this process is"),
        RACK("rack", "NAME", "- (the member list's)",
                "the rack (failure domain) this member declares; must match the member list's"),
        FEATURE_LEVEL("feature-level", "N", "- (the data directory's, 1 when new)",
                "raise the cluster feature level to N at start (once every member runs this release; never lowered)"),
        ACCEPT_RACK_CHANGE("accept-rack-change", "true|false", "false",
                "start even if the rack differs from the one this data directory last ran in (a deliberate move)"),
        REPLICATION_FACTOR("replication-factor", "N", "cluster size",
                "default 'from' of a request (ack = from/2+1); a request may ask up to the cluster size"),
        REQUEST_TIMEOUT("request-timeout", "DUR", "1s", "coordinator deadline for replica answers (cluster)"),
        WORKERS("workers", "N", "2 x CPUs (" + NodeConfig.defaultWorkers() + ")", "worker threads that run requests"),
        QUEUE_SIZE("queue-size", "N", String.valueOf(NodeConfig.defaultQueueSize()),
                "bounded request queue in front of the workers; when full the node answers 503"),
        SELECTORS("selectors", "N", "CPUs (" + NodeConfig.defaultSelectors() + ")",
                "one-nio selector threads (parse requests, write responses)"),
        MAX_BODY("max-body", "SIZE", "16MiB", "larger request bodies are answered 413"),
        BLOCK_CACHE("block-cache", "SIZE",
                "a fifth of memory, at least 64MiB (" + Units.formatSize(NodeConfig.defaultBlockCache()) + ")",
                "RocksDB block cache (a HyperClockCache; fills as it is used)"),
        WRITE_BUFFER("write-buffer", "SIZE", "64MiB", "RocksDB memtable size"),
        PROFILE_DIR("profile-dir", "PATH", "-", "where flamegraph captures are also written"),
        TOMBSTONE_GRACE("tombstone-grace", "DUR", "1d",
                "tombstones older than this are purged by a background sweeper"),
        HINTS("hints", "true|false", "true", "hinted handoff: keep writes for replicas that missed them"),
        HINT_MAX_AGE("hint-max-age", "DUR", "3h", "hints older than this are dropped"),
        HINT_MAX_BYTES("hint-max-bytes", "SIZE", "256MiB", "bound on stored hints; beyond it new hints are dropped"),
        HINT_INTERVAL("hint-interval", "DUR", "1s", "how often pending hints are offered to their peers"),
        MOVE_RATE("move-rate", "SIZE", "8MiB",
                "bytes of records a node sends per second while members change (0: unthrottled)"),
        MOVE_BATCH("move-batch", "SIZE", "256KiB",
                "records streamed to one node per request while members change (at most half of --max-body)"),
        REPAIR_INTERVAL("repair-interval", "DUR", "6h",
                "each replica set is repaired this often, well inside --tombstone-grace (0: only on request)"),
        REPAIR_RATE("repair-rate", "SIZE", "4MiB",
                "bytes of repair and rebuild traffic (hashes and records) a node moves per second (0: unthrottled)"),
        /**
         * TEST ONLY, not in --help: the clock-skew tests (ClockSkewIT, TwoNodeClockSkewIT) start real node processes
         * whose clocks disagree, and a process takes its clock from the command line. Nothing else may set it.
         */
        CLOCK_OFFSET_MS("clock-offset-ms", "N", "0",
                "TEST ONLY: signed ms added to this node's physical clock (simulates clock skew)", true),
        IDLE_TIMEOUT("idle-timeout", "DUR", "30s", "idle keep-alive connections are closed after this"),
        SEND_TIMEOUT("send-timeout", "DUR", "30s",
                "a response (e.g. a range stream) the client stops reading is dropped after this"),
        SHUTDOWN_GRACE("shutdown-grace", "DUR", "10s", "on SIGTERM, how long in-flight requests may finish"),
        DRAIN_TIME("drain-time", "DUR", "0s", "on SIGTERM, first keep serving this long, not ready, closing every "
                + "client connection after its next answer (the operator sets it: clients move to other members)"),
        MEMBER_PORT_OFFSET("member-port-offset", "N", String.valueOf(SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET),
                "the member port (member protocol only) is the client port + N, the same N on every member"),
        MEMBER_INSECURE("member-insecure", "true|false", "false",
                "TRUSTED TEST NETWORKS ONLY: member port in plaintext on every interface (else loopback only)"),
        MEMBER_TLS_CERT("member-tls-cert", "PATH", "- (no TLS)",
                "member port mutual TLS: this member's certificate chain (PEM); re-read when it changes"),
        MEMBER_TLS_KEY("member-tls-key", "PATH", "-", "its private key (PKCS#8 PEM, unencrypted)"),
        MEMBER_TLS_CA("member-tls-ca", "PATH", "-", "the CAs whose member certificates are trusted (PEM)"),
        CLIENT_TLS_CERT("client-tls-cert", "PATH", "- (plaintext)",
                "client port TLS (then TLS only): this node's certificate chain (PEM); re-read when it changes"),
        CLIENT_TLS_KEY("client-tls-key", "PATH", "-", "its private key (PKCS#8 PEM, unencrypted)"),
        CLIENT_TLS_CA("client-tls-ca", "PATH", "- (no client certificates)",
                "the CAs of client certificates (PEM); a certificate's subject O names its scope"),
        CLIENT_AUTH("client-auth", "required|optional", "required (with --client-tls-ca)",
                "client certificates: every client presents one, or those without need a token"),
        METRICS_PORT("metrics-port", "N", "- (none)",
                "a plaintext port serving GET /metrics and /v0/status only (scrapers, probes), every interface"),
        BACKUP_ENDPOINT("backup-endpoint", "URL", "-",
                "S3-compatible object store for backups and restores, http(s)://host[:port]"),
        BACKUP_BUCKET("backup-bucket", "NAME", "-", "the bucket backups are written to and restored from"),
        BACKUP_PREFIX("backup-prefix", "PATH", "-", "key prefix inside the bucket"),
        BACKUP_REGION("backup-region", "NAME", "- (AWS_REGION, the profile's, else us-east-1; S3's redirect names"
                + " the bucket's)", "signing region of the object store"),
        BACKUP_PATH_STYLE("backup-path-style", "true|false", "true",
                "endpoint/bucket/key (true) or bucket.endpoint/key (false, AWS's virtual-hosted style)"),
        BACKUP_CREDENTIALS("backup-credentials", "DIR", "- (the AWS SDK's default credential chain)",
                "directory with the files access-key-id, secret-access-key and optionally session-token (re-read"
                        + " when they change)"),
        BACKUP_ENCRYPTION_KEY("backup-encryption-key", "FILE", "-",
                "encrypt backed-up files on this node with the key in FILE (Tink's AES-GCM-HKDF streaming format);"
                        + " restores need it too"),
        BACKUP_RATE("backup-rate", "SIZE", "4MiB", "bytes a backup uploads per second at most (0: unthrottled)"),
        BACKUP_PART_SIZE("backup-part-size", "SIZE", "16MiB",
                "files larger than this are uploaded in parts of this size (at least 5MiB), resumed after a restart"),
        RESTORE_RATE("restore-rate", "SIZE", "0", "bytes a restore downloads, and sends to the owners, per second at most (0: unthrottled)"),
        RESTORING("restoring", "true|false", "false",
                "with a new data directory, serve no client until a restore is done (a cluster made from a backup)"),
        MAX_CLOCK_AHEAD("max-clock-ahead", "DUR", "30s",
                "clock readings and record timestamps further ahead of this node's clock are refused (not merged)"),
        AUTH_TOKENS("auth-tokens", "PATH", "- (the client API is open)",
                "client tokens, '<read-only|read-write|admin> <token>' a line; re-read when it changes"),
        NATIVE_DIR("native-dir", "PATH", "- (unpacked once into $DHT_CACHE_DIR/native)",
                "load the native libraries (RocksDB, one-nio, async-profiler) from here; nothing is written");

        final String name;
        final String metavar;
        final String defaultText;
        final String help;
        /** A test hook: accepted, but not listed by --help. */
        final boolean testOnly;

        Option(String name, String metavar, String defaultText, String help) {
            this(name, metavar, defaultText, help, false);
        }

        Option(String name, String metavar, String defaultText, String help, boolean testOnly) {
            this.name = name;
            this.metavar = metavar;
            this.defaultText = defaultText;
            this.help = help;
            this.testOnly = testOnly;
        }

        public boolean testOnly() {
            return testOnly;
        }

        public String flag() {
            return "--" + name;
        }

        public String env() {
            return "DHT_" + name.toUpperCase(Locale.ROOT).replace('-', '_');
        }

        static Option byName(String name) {
            for (Option o : values()) {
                if (o.name.equals(name)) {
                    return o;
                }
            }
            return null;
        }
    }

    /** Thrown for --help: not an error, the caller prints {@link #help()} and exits 0. */
    public static final class HelpRequested extends Exception {
        private static final long serialVersionUID = 1L;

        HelpRequested() {
            super("help", null, false, false);
        }
    }

    private ConfigParser() {
    }

    public static NodeConfig parse(List<String> args, Map<String, String> env) throws ConfigException, HelpRequested {
        return build(raw(args, env));
    }

    /**
     * --native-dir: a setting of the process (where its native libraries come from, decided once before the first
     * node starts), not of a node, so it is not in {@link NodeConfig}. Null when not given.
     */
    public static Path nativeDir(List<String> args, Map<String, String> env) throws ConfigException, HelpRequested {
        return path(raw(args, env), Option.NATIVE_DIR, null);
    }

    /** The backup settings (a setting of the process beside the node's, like --native-dir). */
    public static BackupSettings backup(List<String> args, Map<String, String> env)
            throws ConfigException, HelpRequested {
        Map<Option, String> raw = raw(args, env);
        long uploadRate = size(raw, Option.BACKUP_RATE, BackupSettings.DEFAULT_UPLOAD_RATE, 0, Long.MAX_VALUE);
        long partSize = size(raw, Option.BACKUP_PART_SIZE, BackupSettings.DEFAULT_PART_SIZE,
                BackupSettings.MIN_PART_SIZE, 5L << 30);
        long restoreRate = size(raw, Option.RESTORE_RATE, 0, 0, Long.MAX_VALUE);
        boolean restoring = bool(raw, Option.RESTORING, false);
        String endpoint = raw.get(Option.BACKUP_ENDPOINT);
        if (endpoint == null) {
            return new BackupSettings(null, null, null, uploadRate, partSize, restoreRate, restoring);
        }
        String bucket = raw.get(Option.BACKUP_BUCKET);
        Path credentials = path(raw, Option.BACKUP_CREDENTIALS, null);
        if (bucket == null) {
            throw new ConfigException(describe(Option.BACKUP_ENDPOINT) + " needs " + describe(Option.BACKUP_BUCKET));
        }
        dev.dht.node.objectstore.S3Location location;
        try {
            location = new dev.dht.node.objectstore.S3Location(java.net.URI.create(endpoint.trim()), bucket.trim(),
                    raw.getOrDefault(Option.BACKUP_PREFIX, ""), raw.get(Option.BACKUP_REGION),
                    bool(raw, Option.BACKUP_PATH_STYLE, true));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("bad backup location: " + e.getMessage());
        }
        return new BackupSettings(location, credentials, path(raw, Option.BACKUP_ENCRYPTION_KEY, null), uploadRate,
                partSize, restoreRate, restoring);
    }

    private static Map<Option, String> raw(List<String> args, Map<String, String> env)
            throws ConfigException, HelpRequested {
        Map<Option, String> raw = new EnumMap<>(Option.class);
        for (Option o : Option.values()) {
            String v = env.get(o.env());
            if (v != null && !v.isEmpty()) {
                raw.put(o, v);
            }
        }
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--help") || arg.equals("-h")) {
                throw new HelpRequested();
            }
            if (!arg.startsWith("--")) {
                throw new ConfigException("unexpected argument '" + arg + "'");
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            Option option = Option.byName(name);
            if (option == null) {
                throw new ConfigException("unknown option '--" + name + "'");
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new ConfigException("option " + option.flag() + " needs a value (" + option.metavar + ")");
                }
                value = args.get(++i);
            }
            raw.put(option, value);
        }
        return raw;
    }

    private static NodeConfig build(Map<Option, String> raw) throws ConfigException {
        int port = intIn(raw, Option.PORT, NodeConfig.DEFAULT_PORT, 1, 65535);
        Path dataDir = path(raw, Option.DATA_DIR, Path.of("./data"));

        if (raw.containsKey(Option.CLUSTER) && raw.containsKey(Option.CLUSTER_FILE)) {
            throw new ConfigException("give either --cluster or --cluster-file, not both");
        }
        Path clusterFile = path(raw, Option.CLUSTER_FILE, null);
        ClusterMembers members;
        if (clusterFile != null) {
            members = readClusterFile(clusterFile);
        } else {
            String list = raw.getOrDefault(Option.CLUSTER, "http://localhost:" + port);
            try {
                members = ClusterMembers.parseList(list);
            } catch (IllegalArgumentException e) {
                throw new ConfigException("bad value for --cluster: " + e.getMessage());
            }
        }

        String self;
        if (raw.containsKey(Option.SELF)) {
            try {
                self = ClusterMembers.normalize(raw.get(Option.SELF));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("bad value for --self: " + e.getMessage());
            }
        } else {
            self = members.findLocal(port);
            if (self == null) {
                throw new ConfigException("no member of the cluster (" + members + ") is http://localhost:" + port
                        + "; say which one this node is with --self");
            }
        }

        RackSettings rack = rack(raw, members, self);
        int rf = intIn(raw, Option.REPLICATION_FACTOR, 0, 1, 1024);
        Duration requestTimeout = duration(raw, Option.REQUEST_TIMEOUT, Duration.ofSeconds(1));
        int workers = intIn(raw, Option.WORKERS, NodeConfig.defaultWorkers(), 1, 4096);
        int queueSize = intIn(raw, Option.QUEUE_SIZE, NodeConfig.defaultQueueSize(), 1, 1 << 20);
        int selectors = intIn(raw, Option.SELECTORS, NodeConfig.defaultSelectors(), 1, 256);
        long maxBody = size(raw, Option.MAX_BODY, NodeConfig.DEFAULT_MAX_BODY, 0, Integer.MAX_VALUE - 64);
        long blockCache = size(raw, Option.BLOCK_CACHE, NodeConfig.defaultBlockCache(), 0, Long.MAX_VALUE);
        long writeBuffer = size(raw, Option.WRITE_BUFFER, NodeConfig.DEFAULT_WRITE_BUFFER, 64 << 10, 1L << 40);
        Path profileDir = path(raw, Option.PROFILE_DIR, null);
        Duration tombstoneGrace = duration(raw, Option.TOMBSTONE_GRACE, Duration.ofDays(1));
        Duration idle = duration(raw, Option.IDLE_TIMEOUT, Duration.ofSeconds(30));
        Duration send = duration(raw, Option.SEND_TIMEOUT, Duration.ofSeconds(30));
        Duration grace = duration(raw, Option.SHUTDOWN_GRACE, Duration.ofSeconds(10));
        Duration drain = duration(raw, Option.DRAIN_TIME, Duration.ZERO);
        boolean hints = bool(raw, Option.HINTS, true);
        Duration hintMaxAge = duration(raw, Option.HINT_MAX_AGE, ClusterSettings.DEFAULT_HINT_MAX_AGE);
        long hintMaxBytes = size(raw, Option.HINT_MAX_BYTES, ClusterSettings.DEFAULT_HINT_MAX_BYTES, 0,
                Long.MAX_VALUE);
        Duration hintInterval = duration(raw, Option.HINT_INTERVAL, ClusterSettings.DEFAULT_HINT_INTERVAL);
        long clockOffset = longIn(raw, Option.CLOCK_OFFSET_MS, 0, -86_400_000L, 86_400_000L);
        long moveRate = size(raw, Option.MOVE_RATE, ClusterSettings.DEFAULT_MOVE_RATE, 0, Long.MAX_VALUE);
        long moveBatch = size(raw, Option.MOVE_BATCH, ClusterSettings.DEFAULT_MOVE_BATCH, 1 << 10, 8L << 20);
        Duration repairInterval = duration(raw, Option.REPAIR_INTERVAL, ClusterSettings.DEFAULT_REPAIR_INTERVAL);
        long repairRate = size(raw, Option.REPAIR_RATE, ClusterSettings.DEFAULT_REPAIR_RATE, 0, Long.MAX_VALUE);
        if (idle.isZero() || send.isZero() || requestTimeout.isZero()) {
            throw new ConfigException("timeouts must be positive");
        }
        // the members receive the batches as request bodies: keep them well within --max-body
        moveBatch = Math.max(1, Math.min(moveBatch, maxBody / 2));
        if (hintInterval.isZero()) {
            throw new ConfigException("bad value for " + describe(Option.HINT_INTERVAL) + ": must be positive");
        }
        SecuritySettings security = security(raw, port, members);
        return new NodeConfig(port, dataDir, members, clusterFile, self, rf, requestTimeout, workers, queueSize,
                selectors, maxBody, blockCache, writeBuffer, profileDir, tombstoneGrace, idle, send, grace,
                new ClusterSettings(hints, hintMaxAge, hintMaxBytes, hintInterval, clockOffset, moveRate,
                        (int) moveBatch, repairInterval, repairRate), security, drain, rack,
                intIn(raw, Option.FEATURE_LEVEL, 0, 1, dev.dht.node.release.FeatureLevel.MAX));
    }

    /** --rack and --accept-rack-change; a rack the member list gives this member must be the declared one. */
    private static RackSettings rack(Map<Option, String> raw, ClusterMembers members, String self)
            throws ConfigException {
        String declared = raw.get(Option.RACK);
        if (declared != null) {
            try {
                ClusterMembers.checkRack(declared.trim());
            } catch (IllegalArgumentException e) {
                throw new ConfigException("bad value for " + describe(Option.RACK) + ": " + e.getMessage());
            }
            declared = declared.trim();
        }
        String listed = members.rackOf(self);
        if (declared != null && listed != null && !listed.equals(declared)) {
            throw new ConfigException("this member (" + self + ") declares rack '" + declared + "' ("
                    + describe(Option.RACK) + ") but the member list puts it in rack '" + listed
                    + "': make them agree (on Kubernetes the pod's rack label and the topology ConfigMap come from"
                    + " the same DhtCluster rack)");
        }
        return new RackSettings(declared, bool(raw, Option.ACCEPT_RACK_CHANGE, false));
    }

    /** The planes' settings (docs/security.md); the member list must be servable with them. */
    private static SecuritySettings security(Map<Option, String> raw, int port, ClusterMembers members)
            throws ConfigException {
        int offset = intIn(raw, Option.MEMBER_PORT_OFFSET, SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET, -65534,
                65534);
        boolean insecure = bool(raw, Option.MEMBER_INSECURE, false);
        Duration maxClockAhead = duration(raw, Option.MAX_CLOCK_AHEAD, SecuritySettings.DEFAULT_MAX_CLOCK_AHEAD);
        if (maxClockAhead.compareTo(Duration.ofMillis(100)) < 0 || maxClockAhead.compareTo(Duration.ofDays(1)) > 0) {
            throw new ConfigException("bad value for " + describe(Option.MAX_CLOCK_AHEAD) + ": " + maxClockAhead
                    + " is outside 100ms..1d");
        }
        if (port + offset < 1 || port + offset > 65535) {
            throw new ConfigException("bad value for " + describe(Option.MEMBER_PORT_OFFSET) + ": member port "
                    + port + " + " + offset + " is outside 1..65535");
        }
        SecuritySettings.TlsFiles tls = tlsFiles(raw);
        if (tls != null && insecure) {
            throw new ConfigException("--member-insecure and member TLS exclude each other: give one");
        }
        String problem = MemberPorts.problem(members, offset, tls != null, insecure);
        if (problem != null) {
            throw new ConfigException(problem);
        }
        int metricsPort = intIn(raw, Option.METRICS_PORT, 0, 1, 65535);
        if (metricsPort == port || metricsPort == port + offset) {
            throw new ConfigException("bad value for " + describe(Option.METRICS_PORT) + ": " + metricsPort
                    + " is the client or the member port");
        }
        return new SecuritySettings(offset, insecure, maxClockAhead, path(raw, Option.AUTH_TOKENS, null), tls,
                clientTlsFiles(raw), metricsPort);
    }

    /** The client port's certificate and key, or neither; the CA with --client-auth, or neither. */
    private static SecuritySettings.ClientTlsFiles clientTlsFiles(Map<Option, String> raw) throws ConfigException {
        Path cert = path(raw, Option.CLIENT_TLS_CERT, null);
        Path key = path(raw, Option.CLIENT_TLS_KEY, null);
        Path ca = path(raw, Option.CLIENT_TLS_CA, null);
        String auth = raw.get(Option.CLIENT_AUTH);
        if (cert == null && key == null) {
            if (ca != null || auth != null) {
                throw new ConfigException("--client-tls-ca and --client-auth need TLS on the client port:"
                        + " --client-tls-cert and --client-tls-key");
            }
            return null;
        }
        if (cert == null || key == null) {
            throw new ConfigException("client TLS needs both --client-tls-cert and --client-tls-key");
        }
        if (ca == null) {
            if (auth != null) {
                throw new ConfigException("--client-auth needs --client-tls-ca, the CAs of the client certificates");
            }
            return new SecuritySettings.ClientTlsFiles(cert, key, null, SecuritySettings.ClientCertificates.NONE);
        }
        try {
            return new SecuritySettings.ClientTlsFiles(cert, key, ca,
                    auth == null ? SecuritySettings.ClientCertificates.REQUIRED
                            : SecuritySettings.ClientCertificates.parse(auth));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("bad value for " + describe(Option.CLIENT_AUTH) + ": " + e.getMessage());
        }
    }

    /** All three TLS files, or none. */
    private static SecuritySettings.TlsFiles tlsFiles(Map<Option, String> raw) throws ConfigException {
        Path cert = path(raw, Option.MEMBER_TLS_CERT, null);
        Path key = path(raw, Option.MEMBER_TLS_KEY, null);
        Path ca = path(raw, Option.MEMBER_TLS_CA, null);
        if (cert == null && key == null && ca == null) {
            return null;
        }
        if (cert == null || key == null || ca == null) {
            throw new ConfigException("member TLS needs all three of --member-tls-cert, --member-tls-key and"
                    + " --member-tls-ca");
        }
        return new SecuritySettings.TlsFiles(cert, key, ca);
    }

    static ClusterMembers readClusterFile(Path file) throws ConfigException {
        String content;
        try {
            content = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException("cannot read --cluster-file " + file + ": " + e);
        }
        try {
            return ClusterMembers.parseFile(content);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("bad --cluster-file " + file + ": " + e.getMessage());
        }
    }

    private static String describe(Option o) {
        return o.flag() + " (" + o.env() + ")";
    }

    private static int intIn(Map<Option, String> raw, Option o, int dflt, int min, int max) throws ConfigException {
        String v = raw.get(o);
        if (v == null) {
            return dflt;
        }
        int n;
        try {
            n = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException("bad value for " + describe(o) + ": '" + v + "' is not a whole number");
        }
        if (n < min || n > max) {
            throw new ConfigException("bad value for " + describe(o) + ": " + n + " is outside " + min + ".." + max);
        }
        return n;
    }

    private static long longIn(Map<Option, String> raw, Option o, long dflt, long min, long max)
            throws ConfigException {
        String v = raw.get(o);
        if (v == null) {
            return dflt;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException("bad value for " + describe(o) + ": '" + v + "' is not a whole number");
        }
        if (n < min || n > max) {
            throw new ConfigException("bad value for " + describe(o) + ": " + n + " is outside " + min + ".." + max);
        }
        return n;
    }

    private static boolean bool(Map<Option, String> raw, Option o, boolean dflt) throws ConfigException {
        String v = raw.get(o);
        if (v == null) {
            return dflt;
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new ConfigException("bad value for " + describe(o) + ": '" + v + "' is not true or false");
        };
    }

    private static long size(Map<Option, String> raw, Option o, long dflt, long min, long max) throws ConfigException {
        String v = raw.get(o);
        if (v == null) {
            return dflt;
        }
        long n;
        try {
            n = Units.parseSize(v);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("bad value for " + describe(o) + ": " + e.getMessage());
        }
        if (n < min || n > max) {
            throw new ConfigException("bad value for " + describe(o) + ": " + v + " is outside "
                    + Units.formatSize(min) + ".." + Units.formatSize(max));
        }
        return n;
    }

    private static Duration duration(Map<Option, String> raw, Option o, Duration dflt) throws ConfigException {
        String v = raw.get(o);
        if (v == null) {
            return dflt;
        }
        try {
            return Units.parseDuration(v);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("bad value for " + describe(o) + ": " + e.getMessage());
        }
    }

    private static Path path(Map<Option, String> raw, Option o, Path dflt) throws ConfigException {
        String v = raw.get(o);
        if (v == null) {
            return dflt;
        }
        try {
            return Path.of(v);
        } catch (InvalidPathException e) {
            throw new ConfigException("bad value for " + describe(o) + ": " + e.getMessage());
        }
    }

    /** The --help text: every option with its environment variable and default. */
    public static String help() {
        StringBuilder sb = new StringBuilder();
        sb.append("Usage: java -jar dht-node.jar [options]\n\n");
        sb.append("The dht storage node: the /v0 key-value API over RocksDB, /metrics, /v0/admin/profile.\n");
        sb.append("Every option also comes from the environment variable shown; the command line wins.\n");
        sb.append("SIZE: bytes or k/m/g with optional i/iB/B (binary: 64MiB = 64Mi = 64m). ");
        sb.append("DUR: 500ms, 1s, 2m, 1h, 1d.\n\nOptions:\n");
        for (Option o : Option.values()) {
            if (o.testOnly) {
                continue;
            }
            String left = "  " + o.flag() + " " + o.metavar;
            sb.append(left);
            sb.append(" ".repeat(Math.max(1, 36 - left.length())));
            sb.append(o.help).append('\n');
            sb.append(" ".repeat(36)).append("env ").append(o.env()).append(", default: ").append(o.defaultText)
                    .append('\n');
        }
        sb.append("  --help").append(" ".repeat(28)).append("print this help and exit\n");
        sb.append("  --version").append(" ".repeat(25)).append("print the release and exit\n");
        return sb.toString();
    }
}
