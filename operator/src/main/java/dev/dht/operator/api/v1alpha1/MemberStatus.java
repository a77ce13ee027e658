package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class MemberStatus {
  @JsonPropertyDescription("Pod name, <cluster>-<ordinal>.")
  public String name;

  @JsonPropertyDescription("Base URL other members and clients use (stable DNS name through the headless Service).")
  public String url;

  @JsonPropertyDescription("Joining (in the topology, not yet ready once), Up, or Draining (leaving; reserved"
      + " for scale-down with data movement).")
  public MemberState state;

  @JsonPropertyDescription("Whether the member's pod is ready now.")
  public Boolean ready;

  public MemberStatus() {}

  public MemberStatus(String name, String url, MemberState state, boolean ready) {
    this.name = name;
    this.url = url;
    this.state = state;
    this.ready = ready;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MemberStatus m && Objects.equals(name, m.name) && Objects.equals(url, m.url)
        && state == m.state && Objects.equals(ready, m.ready);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, url, state, ready);
  }

  @Override
  public String toString() {
    return name + "(" + state + (Boolean.TRUE.equals(ready) ? ",ready" : ",not ready") + ")";
  }
}
