// GENERATED from the node's option table (dev.dht.node.config.NodeOption) by make crds: do not edit.
package dev.dht.operator.api.v1alpha1;

/**
 * The node's options as the node declares them: the environment variable of each, and the default of
 * those with a fixed one. Where the operator or the CRD default to what the node does, they use these;
 * the node's OptionFilesTest fails when this file is stale.
 */
public final class NodeOptions {
  private NodeOptions() {}

  /** The environment variable the node reads each option from (--some-name: DHT_SOME_NAME). */
  public static final class Env {
    public static final String PORT = "DHT_PORT";
    public static final String DATA_DIR = "DHT_DATA_DIR";
    public static final String CLUSTER = "DHT_CLUSTER";
    public static final String CLUSTER_FILE = "DHT_CLUSTER_FILE";
    public static final String SELF = "DHT_SELF";
    public static final String RACK = "DHT_RACK";
    public static final String FEATURE_LEVEL = "DHT_FEATURE_LEVEL";
    public static final String ACCEPT_RACK_CHANGE = "DHT_ACCEPT_RACK_CHANGE";
    public static final String REPLICATION_FACTOR = "DHT_REPLICATION_FACTOR";
    public static final String REQUEST_TIMEOUT = "DHT_REQUEST_TIMEOUT";
    public static final String WORKERS = "DHT_WORKERS";
    public static final String QUEUE_SIZE = "DHT_QUEUE_SIZE";
    public static final String SELECTORS = "DHT_SELECTORS";
    public static final String MAX_BODY = "DHT_MAX_BODY";
    public static final String BLOCK_CACHE = "DHT_BLOCK_CACHE";
    public static final String WRITE_BUFFER = "DHT_WRITE_BUFFER";
    public static final String PROFILE_DIR = "DHT_PROFILE_DIR";
    public static final String TOMBSTONE_GRACE = "DHT_TOMBSTONE_GRACE";
    public static final String HINTS = "DHT_HINTS";
    public static final String HINT_MAX_AGE = "DHT_HINT_MAX_AGE";
    public static final String HINT_MAX_BYTES = "DHT_HINT_MAX_BYTES";
    public static final String HINT_INTERVAL = "DHT_HINT_INTERVAL";
    public static final String MOVE_RATE = "DHT_MOVE_RATE";
    public static final String MOVE_BATCH = "DHT_MOVE_BATCH";
    public static final String REPAIR_INTERVAL = "DHT_REPAIR_INTERVAL";
    public static final String REPAIR_RATE = "DHT_REPAIR_RATE";
    public static final String IDLE_TIMEOUT = "DHT_IDLE_TIMEOUT";
    public static final String SEND_TIMEOUT = "DHT_SEND_TIMEOUT";
    public static final String SHUTDOWN_GRACE = "DHT_SHUTDOWN_GRACE";
    public static final String DRAIN_TIME = "DHT_DRAIN_TIME";
    public static final String MEMBER_PORT_OFFSET = "DHT_MEMBER_PORT_OFFSET";
    public static final String MEMBER_INSECURE = "DHT_MEMBER_INSECURE";
    public static final String MEMBER_TLS_CERT = "DHT_MEMBER_TLS_CERT";
    public static final String MEMBER_TLS_KEY = "DHT_MEMBER_TLS_KEY";
    public static final String MEMBER_TLS_CA = "DHT_MEMBER_TLS_CA";
    public static final String CLIENT_TLS_CERT = "DHT_CLIENT_TLS_CERT";
    public static final String CLIENT_TLS_KEY = "DHT_CLIENT_TLS_KEY";
    public static final String CLIENT_TLS_CA = "DHT_CLIENT_TLS_CA";
    public static final String CLIENT_AUTH = "DHT_CLIENT_AUTH";
    public static final String METRICS_PORT = "DHT_METRICS_PORT";
    public static final String BACKUP_ENDPOINT = "DHT_BACKUP_ENDPOINT";
    public static final String BACKUP_BUCKET = "DHT_BACKUP_BUCKET";
    public static final String BACKUP_PREFIX = "DHT_BACKUP_PREFIX";
    public static final String BACKUP_REGION = "DHT_BACKUP_REGION";
    public static final String BACKUP_PATH_STYLE = "DHT_BACKUP_PATH_STYLE";
    public static final String BACKUP_CREDENTIALS = "DHT_BACKUP_CREDENTIALS";
    public static final String BACKUP_ENCRYPTION_KEY = "DHT_BACKUP_ENCRYPTION_KEY";
    public static final String BACKUP_RATE = "DHT_BACKUP_RATE";
    public static final String BACKUP_PART_SIZE = "DHT_BACKUP_PART_SIZE";
    public static final String RESTORE_RATE = "DHT_RESTORE_RATE";
    public static final String RESTORING = "DHT_RESTORING";
    public static final String MAX_CLOCK_AHEAD = "DHT_MAX_CLOCK_AHEAD";
    public static final String AUTH_TOKENS = "DHT_AUTH_TOKENS";
    public static final String NATIVE_DIR = "DHT_NATIVE_DIR";

    private Env() {}
  }

  /** Fixed defaults, as the node reads them (sizes as Kubernetes quantities). */
  public static final class Default {
    public static final int PORT = 8080;
    public static final String DATA_DIR = "./data";
    public static final boolean ACCEPT_RACK_CHANGE = false;
    public static final String REQUEST_TIMEOUT = "1s";
    public static final int QUEUE_SIZE = 1024;
    public static final String MAX_BODY = "16Mi";
    public static final String WRITE_BUFFER = "64Mi";
    public static final String TOMBSTONE_GRACE = "1d";
    public static final boolean HINTS = true;
    public static final String HINT_MAX_AGE = "3h";
    public static final String HINT_MAX_BYTES = "256Mi";
    public static final String HINT_INTERVAL = "1s";
    public static final String MOVE_RATE = "8Mi";
    public static final String MOVE_BATCH = "256Ki";
    public static final String REPAIR_INTERVAL = "6h";
    public static final String REPAIR_RATE = "4Mi";
    public static final String IDLE_TIMEOUT = "30s";
    public static final String SEND_TIMEOUT = "30s";
    public static final String SHUTDOWN_GRACE = "10s";
    public static final String DRAIN_TIME = "0s";
    public static final int MEMBER_PORT_OFFSET = 10000;
    public static final boolean MEMBER_INSECURE = false;
    public static final boolean BACKUP_PATH_STYLE = true;
    public static final String BACKUP_RATE = "4Mi";
    public static final String BACKUP_PART_SIZE = "16Mi";
    public static final String RESTORE_RATE = "0";
    public static final boolean RESTORING = false;
    public static final String MAX_CLOCK_AHEAD = "30s";

    private Default() {}
  }
}
