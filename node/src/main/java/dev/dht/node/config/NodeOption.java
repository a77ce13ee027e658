package dev.dht.node.config;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.release.FeatureLevel;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The node's options, declared once: name, value type and bounds, default, help. {@link ConfigParser} parses with
 * it, {@code --help} lists it, every option's environment variable is derived from its name, and the operator's
 * constants ({@code NodeOptions.java}) and docs/node-options.md are generated from it ({@code make crds}; a test fails
 * when they are stale). Order = order in --help.
 *
 * <p>A default is either a value (parsed like a user's, so the operator and the CRD can use it too: sizes are written
 * as Kubernetes quantities, "4Mi") or, when there is no fixed one, only a text for --help.
 */
public enum NodeOption {
    PORT(
            "port",
            "N",
            Type.ints(1, 65535),
            "8080",
            "client port: the API, /metrics, status; admin operations from loopback"),
    DATA_DIR("data-dir", "PATH", Type.PATH, "./data", "RocksDB directory (created if missing)"),
    CLUSTER(
            "cluster",
            "[RACK=]URL,...",
            Type.TEXT,
            shown("http://localhost:<port>"),
            "every member's base URL, itself included, each with its rack or none; order does not matter"),
    CLUSTER_FILE(
            "cluster-file",
            "PATH",
            Type.PATH,
            shown("-"),
            "one [RACK=]URL a line ('#' comments); re-read when its content changes (instead of --cluster)"),
    SELF(
            "self",
            "URL",
            Type.TEXT,
            shown("the member on localhost/127.0.0.1 with this port"),
            "which member this process is"),
    RACK(
            "rack",
            "NAME",
            Type.TEXT,
            shown("- (the member list's)"),
            "the rack (failure domain) this member declares; must match the member list's"),
    FEATURE_LEVEL(
            "feature-level",
            "N",
            Type.ints(1, FeatureLevel.MAX),
            shown("- (the data directory's, 1 when new)"),
            "raise the cluster feature level to N at start (once every member runs this release; never lowered)"),
    ACCEPT_RACK_CHANGE(
            "accept-rack-change",
            "true|false",
            Type.BOOL,
            "false",
            "start even if the rack differs from the one this data directory last ran in (a deliberate move)"),
    REPLICATION_FACTOR(
            "replication-factor",
            "N",
            Type.ints(1, 1024),
            shown("cluster size"),
            "default 'from' of a request (ack = from/2+1); a request may ask up to the cluster size"),
    REQUEST_TIMEOUT(
            "request-timeout", "DUR", Type.DURATION, "1s", "coordinator deadline for replica answers (cluster)"),
    WORKERS(
            "workers",
            "N",
            Type.ints(1, 4096),
            machine("2 x CPUs", NodeConfig::defaultWorkers),
            "worker threads that run requests"),
    QUEUE_SIZE(
            "queue-size",
            "N",
            Type.ints(1, 1 << 20),
            "1024",
            "bounded request queue in front of the workers; when full the node answers 503"),
    SELECTORS(
            "selectors",
            "N",
            Type.ints(1, 256),
            machine("CPUs", NodeConfig::defaultSelectors),
            "one-nio selector threads (parse requests, write responses)"),
    MAX_BODY(
            "max-body",
            "SIZE",
            Type.sizes(0, Integer.MAX_VALUE - 64),
            "16Mi",
            "larger request bodies are answered 413"),
    BLOCK_CACHE(
            "block-cache",
            "SIZE",
            Type.sizes(0, Long.MAX_VALUE),
            machine("a fifth of memory, at least 64MiB", () -> Units.formatSize(NodeConfig.defaultBlockCache())),
            "RocksDB block cache (a HyperClockCache; fills as it is used)"),
    WRITE_BUFFER("write-buffer", "SIZE", Type.sizes(64 << 10, 1L << 40), "64Mi", "RocksDB memtable size"),
    PROFILE_DIR("profile-dir", "PATH", Type.PATH, shown("-"), "where flamegraph captures are also written"),
    TOMBSTONE_GRACE(
            "tombstone-grace",
            "DUR",
            Type.DURATION,
            "1d",
            "tombstones older than this are purged by a background sweeper"),
    HINTS("hints", "true|false", Type.BOOL, "true", "hinted handoff: keep writes for replicas that missed them"),
    HINT_MAX_AGE("hint-max-age", "DUR", Type.DURATION, "3h", "hints older than this are dropped"),
    HINT_MAX_BYTES(
            "hint-max-bytes",
            "SIZE",
            Type.sizes(0, Long.MAX_VALUE),
            "256Mi",
            "bound on stored hints; beyond it new hints are dropped"),
    HINT_INTERVAL("hint-interval", "DUR", Type.DURATION, "1s", "how often pending hints are offered to their peers"),
    MOVE_RATE(
            "move-rate",
            "SIZE",
            Type.sizes(0, Long.MAX_VALUE),
            "8Mi",
            "bytes of records a node sends per second while members change (0: unthrottled)"),
    MOVE_BATCH(
            "move-batch",
            "SIZE",
            Type.sizes(1 << 10, 8L << 20),
            "256Ki",
            "records streamed to one node per request while members change (at most half of --max-body)"),
    REPAIR_INTERVAL(
            "repair-interval",
            "DUR",
            Type.DURATION,
            "6h",
            "each replica set is repaired this often, well inside --tombstone-grace (0: only on request)"),
    REPAIR_RATE(
            "repair-rate",
            "SIZE",
            Type.sizes(0, Long.MAX_VALUE),
            "4Mi",
            "bytes of repair and rebuild traffic (hashes and records) a node moves per second (0: unthrottled)"),
    /**
     * TEST ONLY, not in --help: the clock-skew tests (ClockSkewIT, TwoNodeClockSkewIT) start real node processes
     * whose clocks disagree, and a process takes its clock from the command line. Nothing else may set it.
     */
    CLOCK_OFFSET_MS(
            "clock-offset-ms",
            "N",
            Type.ints(-86_400_000L, 86_400_000L),
            "0",
            "TEST ONLY: signed ms added to this node's physical clock (simulates clock skew)",
            true),
    IDLE_TIMEOUT("idle-timeout", "DUR", Type.DURATION, "30s", "idle keep-alive connections are closed after this"),
    SEND_TIMEOUT(
            "send-timeout",
            "DUR",
            Type.DURATION,
            "30s",
            "a response (e.g. a range stream) the client stops reading is dropped after this"),
    SHUTDOWN_GRACE("shutdown-grace", "DUR", Type.DURATION, "10s", "on SIGTERM, how long in-flight requests may finish"),
    DRAIN_TIME(
            "drain-time",
            "DUR",
            Type.DURATION,
            "0s",
            "on SIGTERM, first keep serving this long, not ready, closing"
                    + " every client connection after its next answer (the operator sets it: clients move to other members)"),
    MEMBER_PORT_OFFSET(
            "member-port-offset",
            "N",
            Type.ints(-65534, 65534),
            "10000",
            "the member port (member protocol only) is the client port + N, the same N on every member"),
    MEMBER_INSECURE(
            "member-insecure",
            "true|false",
            Type.BOOL,
            "false",
            "TRUSTED TEST NETWORKS ONLY: member port in plaintext on every interface (else loopback only)"),
    MEMBER_TLS_CERT(
            "member-tls-cert",
            "PATH",
            Type.PATH,
            shown("- (no TLS)"),
            "member port mutual TLS: this member's certificate chain (PEM); re-read when it changes"),
    MEMBER_TLS_KEY("member-tls-key", "PATH", Type.PATH, shown("-"), "its private key (PKCS#8 PEM, unencrypted)"),
    MEMBER_TLS_CA(
            "member-tls-ca", "PATH", Type.PATH, shown("-"), "the CAs whose member certificates are trusted (PEM)"),
    CLIENT_TLS_CERT(
            "client-tls-cert",
            "PATH",
            Type.PATH,
            shown("- (plaintext)"),
            "client port TLS (then TLS only): this node's certificate chain (PEM); re-read when it changes"),
    CLIENT_TLS_KEY("client-tls-key", "PATH", Type.PATH, shown("-"), "its private key (PKCS#8 PEM, unencrypted)"),
    CLIENT_TLS_CA(
            "client-tls-ca",
            "PATH",
            Type.PATH,
            shown("- (no client certificates)"),
            "the CAs of client certificates (PEM); a certificate's subject O names its scope"),
    CLIENT_AUTH(
            "client-auth",
            "required|optional",
            Type.TEXT,
            shown("required (with --client-tls-ca)"),
            "client certificates: every client presents one, or those without need a token"),
    METRICS_PORT(
            "metrics-port",
            "N",
            Type.ints(1, 65535),
            shown("- (none)"),
            "a plaintext port serving GET /metrics and /v0/status only (scrapers, probes), every interface"),
    BACKUP_ENDPOINT(
            "backup-endpoint",
            "URL",
            Type.TEXT,
            shown("-"),
            "S3-compatible object store for backups and restores, http(s)://host[:port]"),
    BACKUP_BUCKET(
            "backup-bucket", "NAME", Type.TEXT, shown("-"), "the bucket backups are written to and restored from"),
    BACKUP_PREFIX("backup-prefix", "PATH", Type.TEXT, shown("-"), "key prefix inside the bucket"),
    BACKUP_REGION(
            "backup-region",
            "NAME",
            Type.TEXT,
            shown("- (AWS_REGION, the profile's, else us-east-1; S3's redirect names the bucket's)"),
            "signing region of the object store"),
    BACKUP_PATH_STYLE(
            "backup-path-style",
            "true|false",
            Type.BOOL,
            "true",
            "endpoint/bucket/key (true) or bucket.endpoint/key (false, AWS's virtual-hosted style)"),
    BACKUP_CREDENTIALS(
            "backup-credentials",
            "DIR",
            Type.PATH,
            shown("- (the AWS SDK's default credential chain)"),
            "directory with the files access-key-id, secret-access-key and optionally session-token (re-read"
                    + " when they change)"),
    BACKUP_ENCRYPTION_KEY(
            "backup-encryption-key",
            "FILE",
            Type.PATH,
            shown("-"),
            "encrypt backed-up files on this node with the key in FILE (Tink's AES-GCM-HKDF streaming format);"
                    + " restores need it too"),
    /**
     * Half the rate members move records at: a backup shares the machine with a live load it must not slow (the
     * load's p99 during a backup at most 1.5x its p99 before; docs/operations.md, "Measured cost").
     */
    BACKUP_RATE(
            "backup-rate",
            "SIZE",
            Type.sizes(0, Long.MAX_VALUE),
            "4Mi",
            "bytes a backup uploads per second at most (0: unthrottled)"),
    /** Parts of 16 MiB: a 64 MiB table file in 4, each 4 s at the default rate (what a kill loses at most). */
    BACKUP_PART_SIZE(
            "backup-part-size",
            "SIZE",
            Type.sizes(BackupSettings.MIN_PART_SIZE, 5L << 30),
            "16Mi",
            "files larger than this are uploaded in parts of this size (at least 5MiB), resumed after a restart"),
    RESTORE_RATE(
            "restore-rate",
            "SIZE",
            Type.sizes(0, Long.MAX_VALUE),
            "0",
            "bytes a restore downloads, and sends to the owners, per second at most (0: unthrottled)"),
    RESTORING(
            "restoring",
            "true|false",
            Type.BOOL,
            "false",
            "with a new data directory, serve no client until a restore is done (a cluster made from a backup)"),
    /** HybridLogicalClock.DEFAULT_MAX_AHEAD says why 30 s. */
    MAX_CLOCK_AHEAD(
            "max-clock-ahead",
            "DUR",
            Type.DURATION,
            Units.formatDuration(HybridLogicalClock.DEFAULT_MAX_AHEAD),
            "clock readings and record timestamps further ahead of this node's clock are refused (not merged)"),
    AUTH_TOKENS(
            "auth-tokens",
            "PATH",
            Type.PATH,
            shown("- (the client API is open)"),
            "client tokens, '<read-only|read-write|admin> <token>' a line; re-read when it changes"),
    NATIVE_DIR(
            "native-dir",
            "PATH",
            Type.PATH,
            shown("- (unpacked once into $DHT_CACHE_DIR/native)"),
            "load the native libraries (RocksDB, one-nio, async-profiler) from here; nothing is written");

    /** What a value is, and for numbers its bounds (sizes in bytes). */
    public enum Kind {
        INT,
        SIZE,
        DURATION,
        BOOL,
        PATH,
        TEXT
    }

    /** A value's kind and inclusive bounds (numbers only). */
    public record Type(Kind kind, long min, long max) {
        static final Type DURATION = new Type(Kind.DURATION, 0, 0);
        static final Type BOOL = new Type(Kind.BOOL, 0, 0);
        static final Type PATH = new Type(Kind.PATH, 0, 0);
        static final Type TEXT = new Type(Kind.TEXT, 0, 0);

        static Type ints(long min, long max) {
            return new Type(Kind.INT, min, max);
        }

        static Type sizes(long min, long max) {
            return new Type(Kind.SIZE, min, max);
        }
    }

    private final String name;
    private final String metavar;
    private final Type type;
    /** The default as a value a user could give, or null when it has none or depends on the machine. */
    private final String defaultValue;
    /** --help's default when there is no fixed value. */
    private final Shown shown;

    private final String help;
    /** A test hook: accepted, but not listed by --help (and not told to the operator). */
    private final boolean testOnly;

    NodeOption(String name, String metavar, Type type, String defaultValue, String help) {
        this(name, metavar, type, defaultValue, null, help, false);
    }

    NodeOption(String name, String metavar, Type type, String defaultValue, String help, boolean testOnly) {
        this(name, metavar, type, defaultValue, null, help, testOnly);
    }

    NodeOption(String name, String metavar, Type type, Shown shown, String help) {
        this(name, metavar, type, null, shown, help, false);
    }

    NodeOption(
            String name, String metavar, Type type, String defaultValue, Shown shown, String help, boolean testOnly) {
        this.name = name;
        this.metavar = metavar;
        this.type = type;
        this.defaultValue = defaultValue;
        this.shown = shown;
        this.help = help;
        this.testOnly = testOnly;
    }

    /** A default without a fixed value: how --help describes it, and what it is on this machine (or null). */
    private record Shown(String text, Supplier<?> machineValue) {}

    private static Shown shown(String text) {
        return new Shown(text, null);
    }

    private static Shown machine(String text, Supplier<?> value) {
        return new Shown(text, value);
    }

    public String optionName() {
        return name;
    }

    public String metavar() {
        return metavar;
    }

    public Type type() {
        return type;
    }

    public String help() {
        return help;
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

    /** The fixed default as a user would write it, or null. */
    public String defaultValue() {
        return defaultValue;
    }

    /** The default as --help shows it (sizes in their shortest exact spelling, 4Mi as 4MiB). */
    public String shownDefault() {
        String text = describedDefault();
        return shown != null && shown.machineValue() != null
                ? text + " (" + shown.machineValue().get() + ")"
                : text;
    }

    /** The default as --help shows it but without this machine's value: the same on every machine. */
    public String describedDefault() {
        if (defaultValue == null) {
            return shown.text();
        }
        return type.kind() == Kind.SIZE ? Units.formatSize(Units.parseSize(defaultValue)) : defaultValue;
    }

    /** The fixed default of an INT option. */
    public long longDefault() {
        return Long.parseLong(fixedDefault(Kind.INT));
    }

    public int intDefault() {
        return Math.toIntExact(longDefault());
    }

    public long sizeDefault() {
        return Units.parseSize(fixedDefault(Kind.SIZE));
    }

    public Duration durationDefault() {
        return Units.parseDuration(fixedDefault(Kind.DURATION));
    }

    public boolean boolDefault() {
        return Boolean.parseBoolean(fixedDefault(Kind.BOOL));
    }

    private String fixedDefault(Kind kind) {
        if (type.kind() != kind || defaultValue == null) {
            throw new IllegalStateException(flag() + " has no fixed " + kind + " default");
        }
        return defaultValue;
    }

    static NodeOption byName(String name) {
        for (NodeOption o : values()) {
            if (o.name.equals(name)) {
                return o;
            }
        }
        return null;
    }
}
