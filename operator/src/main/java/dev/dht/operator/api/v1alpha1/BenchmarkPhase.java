package dev.dht.operator.api.v1alpha1;

/** Where a benchmark's current run is. */
public enum BenchmarkPhase {
    /** The run is waiting: for the target cluster to be Ready, or for its Job's pod to start. */
    Pending,
    /** The load Job runs. */
    Running,
    /** The Job finished and left its summary; the figures are in status.tapes. */
    Succeeded,
    /** The spec cannot run, the Job failed, or a newer run superseded it (status.message says which). */
    Failed
}
