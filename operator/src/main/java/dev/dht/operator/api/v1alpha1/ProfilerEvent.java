package dev.dht.operator.api.v1alpha1;

/** async-profiler events the node's /v0/admin/profile endpoint accepts. */
public enum ProfilerEvent {
    cpu,
    alloc,
    lock,
    wall
}
