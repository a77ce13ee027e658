package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class MemberStatus {
    @JsonPropertyDescription("Pod name, <cluster>-<ordinal>, or <cluster>-<rack>-<ordinal> with racks.")
    public String name;

    @JsonPropertyDescription("The member's rack; absent without racks.")
    public String rack;

    @JsonPropertyDescription("Base URL other members and clients use (stable DNS name through the headless Service).")
    public String url;

    @JsonPropertyDescription("Joining (pod starting, or new in the topology until the data move is done), Up,"
            + " Rebuilding (pulling its ranges from the other replicas after its volume was lost; it serves no read"
            + " meanwhile), or Draining (removed from the topology by a scale-down, handing over its data).")
    public MemberState state;

    @JsonPropertyDescription("Whether the member's pod is ready now.")
    public Boolean ready;

    @JsonPropertyDescription("While a data move runs: idle, moving or unknown (no answer), as its movement endpoint"
            + " reported at the last poll. Absent when no move runs.")
    public String movement;

    @JsonPropertyDescription("While a data move runs: records this member still has to scan and send (its estimate).")
    public Long keysLeft;

    @JsonPropertyDescription(
            "While Rebuilding: how far, e.g. \"412/3072 ranges, 18 MiB received\", or what it waits" + " for.")
    public String rebuild;

    @JsonPropertyDescription("The member's release (GET /v0/admin/feature-level; 0.1.0 for a member without that"
            + " endpoint), as last polled; absent until it answered.")
    public String release;

    @JsonPropertyDescription("The cluster feature level the member runs at, as last polled; absent until it answered.")
    public Integer featureLevel;

    public MemberStatus() {}

    public MemberStatus(String name, String url, MemberState state, boolean ready) {
        this.name = name;
        this.url = url;
        this.state = state;
        this.ready = ready;
    }

    @Override
    public String toString() {
        return name + "(" + state + (Boolean.TRUE.equals(ready) ? ",ready" : ",not ready")
                + (movement != null ? "," + movement : "") + ")";
    }
}
