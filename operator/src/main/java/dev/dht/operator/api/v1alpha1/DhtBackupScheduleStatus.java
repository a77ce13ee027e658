package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/** Observed state of a schedule, written only by the operator. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DhtBackupScheduleStatus extends FieldText {
    @JsonPropertyDescription("The scheduled time of the last backup started.")
    public String lastScheduleTime;

    @JsonPropertyDescription("The next scheduled time (none while suspended).")
    public String nextScheduleTime;

    @JsonPropertyDescription("The DhtBackup last started.")
    public String lastBackup;

    @JsonPropertyDescription("The DhtBackup running now, if any (no other starts meanwhile).")
    public String active;

    @JsonPropertyDescription("Completed backups kept, newest first.")
    public List<String> kept = new ArrayList<>();

    @JsonPropertyDescription("When retention last deleted backups, and which.")
    public String lastPruneTime;

    public List<String> lastPruned = new ArrayList<>();

    @JsonPropertyDescription("What the schedule did last, or why it could not.")
    public String message;
}
