package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What the members report about repair (GET /v0/admin/repair), summed over the members that answered. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RepairStatus {
    @JsonPropertyDescription("Whether the members repair on their own (spec.repair.enabled).")
    public Boolean enabled;

    @JsonPropertyDescription(
            "When the most recent repair round completed on any member (RFC 3339); absent before" + " the first.")
    public String lastCompleteRound;

    @JsonPropertyDescription("The oldest last repair of any range on any member (RFC 3339): every range was repaired"
            + " since. Absent while some range was never repaired.")
    public String oldestRangeRepair;

    @JsonPropertyDescription("Ranges found out of sync by the members' last rounds.")
    public Long rangesOutOfSync;

    @JsonPropertyDescription("Bytes of records repairs sent to replicas that lacked them (since the members started).")
    public Long bytesRepaired;

    @JsonPropertyDescription("Members that answered the last poll.")
    public Integer membersReporting;

    @Override
    public String toString() {
        return "RepairStatus{last=" + lastCompleteRound + ", oldest=" + oldestRangeRepair + ", outOfSync="
                + rangesOutOfSync + ", bytes=" + bytesRepaired + ", reporting=" + membersReporting + "}";
    }
}
