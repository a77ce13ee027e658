package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class ServiceSpec {
    @Default(Defaults.SERVICE_TYPE)
    @JsonPropertyDescription("Type of the client Service: ClusterIP, NodePort or LoadBalancer.")
    public ServiceType type;

    @Min(1)
    @Max(65535)
    @Default("" + Defaults.SERVICE_PORT)
    @JsonPropertyDescription("Port of the client Service (it forwards to the nodes' port 8080).")
    public Integer port;
}
