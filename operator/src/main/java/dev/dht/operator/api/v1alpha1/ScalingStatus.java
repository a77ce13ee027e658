package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/** Progress of a scale in progress: what the operator waits for, and the members' data movement. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ScalingStatus {
    @JsonPropertyDescription("The member count being reached (spec.replicas).")
    public Integer targetReplicas;

    @JsonPropertyDescription("Members in the topology ConfigMap now.")
    public Integer topologyMembers;

    @JsonPropertyDescription("Replicas of the StatefulSet now (above topologyMembers while members start or leave).")
    public Integer statefulSetReplicas;

    @JsonPropertyDescription("StartingMembers, MovingData, RemovingMember or WaitingForRollout.")
    public ScalingStep step;

    @JsonPropertyDescription("Pods no longer in the topology that are still handing over their data.")
    public List<String> leaving = new ArrayList<>();

    @JsonPropertyDescription("Members (and leaving members) whose movement endpoint reported idle at the last poll.")
    public Integer membersIdle;

    @JsonPropertyDescription("Members (and leaving members) polled.")
    public Integer membersPolled;

    @JsonPropertyDescription("Records the members still have to scan and send (their estimates, summed).")
    public Long keysLeft;

    @JsonPropertyDescription("Bytes the members still have to scan and send (their estimates, summed).")
    public Long bytesLeft;

    @Override
    public String toString() {
        return "Scaling{" + step + ", target=" + targetReplicas + ", topology=" + topologyMembers + ", sts="
                + statefulSetReplicas + ", leaving=" + leaving + ", idle=" + membersIdle + "/" + membersPolled
                + ", keysLeft=" + keysLeft + "}";
    }
}
