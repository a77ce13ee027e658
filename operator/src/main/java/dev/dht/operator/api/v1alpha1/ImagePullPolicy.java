package dev.dht.operator.api.v1alpha1;

/** Kubernetes image pull policies (an enum so that the schema rejects anything else). */
public enum ImagePullPolicy {
    Always,
    IfNotPresent,
    Never
}
