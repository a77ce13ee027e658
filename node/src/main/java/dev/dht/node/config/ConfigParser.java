package dev.dht.node.config;

import static dev.dht.node.config.OptionValues.bool;
import static dev.dht.node.config.OptionValues.describe;
import static dev.dht.node.config.OptionValues.duration;
import static dev.dht.node.config.OptionValues.integer;
import static dev.dht.node.config.OptionValues.number;
import static dev.dht.node.config.OptionValues.path;
import static dev.dht.node.config.OptionValues.size;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Command line + environment -> {@link NodeConfig}. Every option {@code --some-name} also comes from
 * {@code DHT_SOME_NAME}; the command line beats the environment. Problems are reported as one-line
 * {@link ConfigException}s (NodeMain turns them into exit code 2).
 */
public final class ConfigParser {

    /** Thrown for --help: not an error, the caller prints {@link #help()} and exits 0. */
    public static final class HelpRequested extends Exception {
        private static final long serialVersionUID = 1L;

        HelpRequested() {
            super("help", null, false, false);
        }
    }

    private ConfigParser() {}

    public static NodeConfig parse(List<String> args, Map<String, String> env) throws ConfigException, HelpRequested {
        return build(raw(args, env));
    }

    /**
     * --native-dir: a setting of the process (where its native libraries come from, decided once before the first
     * node starts), not of a node, so it is not in {@link NodeConfig}. Null when not given.
     */
    public static Path nativeDir(List<String> args, Map<String, String> env) throws ConfigException, HelpRequested {
        return path(raw(args, env), NodeOption.NATIVE_DIR);
    }

    /** The backup settings (a setting of the process beside the node's, like --native-dir). */
    public static BackupSettings backup(List<String> args, Map<String, String> env)
            throws ConfigException, HelpRequested {
        Map<NodeOption, String> raw = raw(args, env);
        long uploadRate = size(raw, NodeOption.BACKUP_RATE);
        long partSize = size(raw, NodeOption.BACKUP_PART_SIZE);
        long restoreRate = size(raw, NodeOption.RESTORE_RATE);
        boolean restoring = bool(raw, NodeOption.RESTORING);
        String endpoint = raw.get(NodeOption.BACKUP_ENDPOINT);
        if (endpoint == null) {
            return new BackupSettings(null, null, null, uploadRate, partSize, restoreRate, restoring);
        }
        String bucket = raw.get(NodeOption.BACKUP_BUCKET);
        Path credentials = path(raw, NodeOption.BACKUP_CREDENTIALS);
        if (bucket == null) {
            throw new ConfigException(
                    describe(NodeOption.BACKUP_ENDPOINT) + " needs " + describe(NodeOption.BACKUP_BUCKET));
        }
        dev.dht.node.objectstore.S3Location location;
        try {
            location = new dev.dht.node.objectstore.S3Location(
                    java.net.URI.create(endpoint.trim()),
                    bucket.trim(),
                    raw.getOrDefault(NodeOption.BACKUP_PREFIX, ""),
                    raw.get(NodeOption.BACKUP_REGION),
                    bool(raw, NodeOption.BACKUP_PATH_STYLE));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("bad backup location: " + e.getMessage());
        }
        return new BackupSettings(
                location,
                credentials,
                path(raw, NodeOption.BACKUP_ENCRYPTION_KEY),
                uploadRate,
                partSize,
                restoreRate,
                restoring);
    }

    private static Map<NodeOption, String> raw(List<String> args, Map<String, String> env)
            throws ConfigException, HelpRequested {
        Map<NodeOption, String> raw = new EnumMap<>(NodeOption.class);
        for (NodeOption o : NodeOption.values()) {
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
            NodeOption option = NodeOption.byName(name);
            if (option == null) {
                throw new ConfigException("unknown option '--" + name + "'");
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new ConfigException("option " + option.flag() + " needs a value (" + option.metavar() + ")");
                }
                value = args.get(++i);
            }
            raw.put(option, value);
        }
        return raw;
    }

    private static NodeConfig build(Map<NodeOption, String> raw) throws ConfigException {
        int port = integer(raw, NodeOption.PORT);
        Path dataDir = path(raw, NodeOption.DATA_DIR);

        if (raw.containsKey(NodeOption.CLUSTER) && raw.containsKey(NodeOption.CLUSTER_FILE)) {
            throw new ConfigException("give either --cluster or --cluster-file, not both");
        }
        Path clusterFile = path(raw, NodeOption.CLUSTER_FILE);
        ClusterMembers members;
        if (clusterFile != null) {
            members = readClusterFile(clusterFile);
        } else {
            String list = raw.getOrDefault(NodeOption.CLUSTER, "http://localhost:" + port);
            try {
                members = ClusterMembers.parseList(list);
            } catch (IllegalArgumentException e) {
                throw new ConfigException("bad value for --cluster: " + e.getMessage());
            }
        }

        String self;
        if (raw.containsKey(NodeOption.SELF)) {
            try {
                self = ClusterMembers.normalize(raw.get(NodeOption.SELF));
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
        int rf = (int) number(raw, NodeOption.REPLICATION_FACTOR, 0);
        Duration requestTimeout = duration(raw, NodeOption.REQUEST_TIMEOUT);
        int workers = (int) number(raw, NodeOption.WORKERS, NodeConfig.defaultWorkers());
        int queueSize = integer(raw, NodeOption.QUEUE_SIZE);
        int selectors = (int) number(raw, NodeOption.SELECTORS, NodeConfig.defaultSelectors());
        long maxBody = size(raw, NodeOption.MAX_BODY);
        long blockCache = number(raw, NodeOption.BLOCK_CACHE, NodeConfig.defaultBlockCache());
        long writeBuffer = size(raw, NodeOption.WRITE_BUFFER);
        Path profileDir = path(raw, NodeOption.PROFILE_DIR);
        Duration tombstoneGrace = duration(raw, NodeOption.TOMBSTONE_GRACE);
        Duration idle = duration(raw, NodeOption.IDLE_TIMEOUT);
        Duration send = duration(raw, NodeOption.SEND_TIMEOUT);
        Duration grace = duration(raw, NodeOption.SHUTDOWN_GRACE);
        Duration drain = duration(raw, NodeOption.DRAIN_TIME);
        boolean hints = bool(raw, NodeOption.HINTS);
        Duration hintMaxAge = duration(raw, NodeOption.HINT_MAX_AGE);
        long hintMaxBytes = size(raw, NodeOption.HINT_MAX_BYTES);
        Duration hintInterval = duration(raw, NodeOption.HINT_INTERVAL);
        long clockOffset = number(raw, NodeOption.CLOCK_OFFSET_MS);
        long moveRate = size(raw, NodeOption.MOVE_RATE);
        long moveBatch = size(raw, NodeOption.MOVE_BATCH);
        Duration repairInterval = duration(raw, NodeOption.REPAIR_INTERVAL);
        long repairRate = size(raw, NodeOption.REPAIR_RATE);
        if (idle.isZero() || send.isZero() || requestTimeout.isZero()) {
            throw new ConfigException("timeouts must be positive");
        }
        // the members receive the batches as request bodies: keep them well within --max-body
        moveBatch = Math.max(1, Math.min(moveBatch, maxBody / 2));
        if (hintInterval.isZero()) {
            throw new ConfigException("bad value for " + describe(NodeOption.HINT_INTERVAL) + ": must be positive");
        }
        SecuritySettings security = security(raw, port, members);
        return new NodeConfig(
                port,
                dataDir,
                members,
                clusterFile,
                self,
                rf,
                requestTimeout,
                workers,
                queueSize,
                selectors,
                maxBody,
                blockCache,
                writeBuffer,
                profileDir,
                tombstoneGrace,
                idle,
                send,
                grace,
                new ClusterSettings(
                        hints,
                        hintMaxAge,
                        hintMaxBytes,
                        hintInterval,
                        clockOffset,
                        moveRate,
                        (int) moveBatch,
                        repairInterval,
                        repairRate),
                security,
                drain,
                rack,
                (int) number(raw, NodeOption.FEATURE_LEVEL, 0));
    }

    /** --rack and --accept-rack-change; a rack the member list gives this member must be the declared one. */
    private static RackSettings rack(Map<NodeOption, String> raw, ClusterMembers members, String self)
            throws ConfigException {
        String declared = raw.get(NodeOption.RACK);
        if (declared != null) {
            try {
                ClusterMembers.checkRack(declared.trim());
            } catch (IllegalArgumentException e) {
                throw new ConfigException("bad value for " + describe(NodeOption.RACK) + ": " + e.getMessage());
            }
            declared = declared.trim();
        }
        String listed = members.rackOf(self);
        if (declared != null && listed != null && !listed.equals(declared)) {
            throw new ConfigException("this member (" + self + ") declares rack '" + declared + "' ("
                    + describe(NodeOption.RACK) + ") but the member list puts it in rack '" + listed
                    + "': make them agree (on Kubernetes the pod's rack label and the topology ConfigMap come from"
                    + " the same DhtCluster rack)");
        }
        return new RackSettings(declared, bool(raw, NodeOption.ACCEPT_RACK_CHANGE));
    }

    /** The planes' settings (docs/security.md); the member list must be servable with them. */
    private static SecuritySettings security(Map<NodeOption, String> raw, int port, ClusterMembers members)
            throws ConfigException {
        int offset = integer(raw, NodeOption.MEMBER_PORT_OFFSET);
        boolean insecure = bool(raw, NodeOption.MEMBER_INSECURE);
        Duration maxClockAhead = duration(raw, NodeOption.MAX_CLOCK_AHEAD);
        if (maxClockAhead.compareTo(Duration.ofMillis(100)) < 0 || maxClockAhead.compareTo(Duration.ofDays(1)) > 0) {
            throw new ConfigException("bad value for " + describe(NodeOption.MAX_CLOCK_AHEAD) + ": " + maxClockAhead
                    + " is outside 100ms..1d");
        }
        if (port + offset < 1 || port + offset > 65535) {
            throw new ConfigException("bad value for " + describe(NodeOption.MEMBER_PORT_OFFSET) + ": member port "
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
        int metricsPort = (int) number(raw, NodeOption.METRICS_PORT, 0);
        if (metricsPort == port || metricsPort == port + offset) {
            throw new ConfigException("bad value for " + describe(NodeOption.METRICS_PORT) + ": " + metricsPort
                    + " is the client or the member port");
        }
        return new SecuritySettings(
                offset,
                insecure,
                maxClockAhead,
                path(raw, NodeOption.AUTH_TOKENS),
                tls,
                clientTlsFiles(raw),
                metricsPort);
    }

    /** The client port's certificate and key, or neither; the CA with --client-auth, or neither. */
    private static SecuritySettings.ClientTlsFiles clientTlsFiles(Map<NodeOption, String> raw) throws ConfigException {
        Path cert = path(raw, NodeOption.CLIENT_TLS_CERT);
        Path key = path(raw, NodeOption.CLIENT_TLS_KEY);
        Path ca = path(raw, NodeOption.CLIENT_TLS_CA);
        String auth = raw.get(NodeOption.CLIENT_AUTH);
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
            return new SecuritySettings.ClientTlsFiles(
                    cert,
                    key,
                    ca,
                    auth == null
                            ? SecuritySettings.ClientCertificates.REQUIRED
                            : SecuritySettings.ClientCertificates.parse(auth));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("bad value for " + describe(NodeOption.CLIENT_AUTH) + ": " + e.getMessage());
        }
    }

    /** All three TLS files, or none. */
    private static SecuritySettings.TlsFiles tlsFiles(Map<NodeOption, String> raw) throws ConfigException {
        Path cert = path(raw, NodeOption.MEMBER_TLS_CERT);
        Path key = path(raw, NodeOption.MEMBER_TLS_KEY);
        Path ca = path(raw, NodeOption.MEMBER_TLS_CA);
        if (cert == null && key == null && ca == null) {
            return null;
        }
        if (cert == null || key == null || ca == null) {
            throw new ConfigException(
                    "member TLS needs all three of --member-tls-cert, --member-tls-key and" + " --member-tls-ca");
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

    /** The --help text: every option of the table with its environment variable and default. */
    public static String help() {
        StringBuilder sb = new StringBuilder();
        sb.append("Usage: java -jar dht-node.jar [options]\n\n");
        sb.append("The dht storage node: the /v0 key-value API over RocksDB, /metrics, /v0/admin/profile.\n");
        sb.append("Every option also comes from the environment variable shown; the command line wins.\n");
        sb.append("SIZE: bytes or k/m/g with optional i/iB/B (binary: 64MiB = 64Mi = 64m). ");
        sb.append("DUR: 500ms, 1s, 2m, 1h, 1d.\n\nOptions:\n");
        for (NodeOption o : NodeOption.values()) {
            if (o.testOnly()) {
                continue;
            }
            String left = "  " + o.flag() + " " + o.metavar();
            sb.append(left);
            sb.append(" ".repeat(Math.max(1, 36 - left.length())));
            sb.append(o.help()).append('\n');
            sb.append(" ".repeat(36))
                    .append("env ")
                    .append(o.env())
                    .append(", default: ")
                    .append(o.shownDefault())
                    .append('\n');
        }
        sb.append("  --help").append(" ".repeat(28)).append("print this help and exit\n");
        sb.append("  --version").append(" ".repeat(25)).append("print the release and exit\n");
        return sb.toString();
    }
}
