package dev.dht.operator.api.v1alpha1;

/**
 * Spec defaults. They appear in the CRD schema (the API server fills them in) and the model applies
 * the same values when a field is absent anyway (a spec written before a default existed, unit tests). Where a
 * spec default is the node's own, it comes from {@link NodeOptions}, generated from the node's option table.
 */
public final class Defaults {
    public static final int REPLICAS = 3;
    /**
     * The replication factor the nodes get when the spec sets none. They cap it at the member count, so the
     * effective factor is min(3, replicas) while the nodes' setting never changes with scaling (a change would roll
     * the pods, and a factor that differs between members during a data move breaks the move's guarantees).
     */
    public static final int REPLICATION_FACTOR = 3;

    public static final String IMAGE_PULL_POLICY = "IfNotPresent";
    public static final String RESOURCES =
            "{\"requests\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"},\"limits\":{\"memory\":\"1Gi\"}}";
    public static final String STORAGE_SIZE = "10Gi";
    /** The node's default (--backup-rate). */
    public static final String BACKUP_UPLOAD_RATE = NodeOptions.Default.BACKUP_RATE;

    public static final int BACKUP_KEEP_LAST = 7;
    public static final boolean RETAIN_ON_DELETE = true;
    public static final boolean RETAIN_ON_SCALE_DOWN = false;
    public static final String SERVICE_TYPE = "ClusterIP";
    /** The client Service's port: the nodes' own by default. */
    public static final int SERVICE_PORT = NodeOptions.Default.PORT;

    public static final String PROFILER_EVENTS = "[\"cpu\"]";
    /** The node's defaults (--repair-interval, --repair-rate, --tombstone-grace): the CRD's are the node's. */
    public static final String REPAIR_INTERVAL = NodeOptions.Default.REPAIR_INTERVAL;

    public static final String REPAIR_RATE = NodeOptions.Default.REPAIR_RATE;
    public static final String TOMBSTONE_GRACE = NodeOptions.Default.TOMBSTONE_GRACE;

    private Defaults() {}
}
