package dev.dht.operator.api.v1alpha1;

public enum ServiceType {
    ClusterIP,
    NodePort,
    LoadBalancer
}
