package dev.dht.operator.api.v1alpha1;

/**
 * Spec defaults. They appear in the CRD schema (the API server fills them in) and the model applies
 * the same values when a field is absent anyway (a spec written before a default existed, unit tests).
 */
public final class Defaults {
  public static final int REPLICAS = 3;
  /** The replication factor defaults to min(MAX_DEFAULT_FACTOR, replicas): a schema cannot say that. */
  public static final int MAX_DEFAULT_FACTOR = 3;
  public static final String IMAGE_PULL_POLICY = "IfNotPresent";
  public static final String RESOURCES =
      "{\"requests\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"},\"limits\":{\"memory\":\"1Gi\"}}";
  public static final String STORAGE_SIZE = "10Gi";
  public static final boolean RETAIN_ON_DELETE = true;
  public static final String SERVICE_TYPE = "ClusterIP";
  public static final int SERVICE_PORT = 8080;
  public static final String PROFILER_EVENTS = "[\"cpu\"]";

  private Defaults() {}
}
