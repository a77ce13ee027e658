package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One rack as observed: its members in the topology, its pods, how many are ready. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RackStatus {
    @io.fabric8.generator.annotation.Size(max = RackSpec.MAX_NAME_LENGTH)
    @JsonPropertyDescription("The rack's name (spec.racks[].name).")
    public String name;

    @JsonPropertyDescription("Members of this rack in the topology (the nodes' member list).")
    public Integer members;

    @JsonPropertyDescription("Pods its StatefulSet runs, members about to join or still leaving included. A drained"
            + " rack can be removed from spec.racks once this and members are 0.")
    public Integer replicas;

    @JsonPropertyDescription("Members of this rack whose pod is ready.")
    public Integer readyMembers;

    @JsonPropertyDescription("Members this rack is to hold once the current scale or drain is done.")
    public Integer targetMembers;

    public RackStatus() {}

    public RackStatus(String name, int members, int replicas, int readyMembers, int targetMembers) {
        this.name = name;
        this.members = members;
        this.replicas = replicas;
        this.readyMembers = readyMembers;
        this.targetMembers = targetMembers;
    }

    @Override
    public String toString() {
        return name + "(" + readyMembers + "/" + members + " ready, " + replicas + " pods, target " + targetMembers
                + ")";
    }
}
