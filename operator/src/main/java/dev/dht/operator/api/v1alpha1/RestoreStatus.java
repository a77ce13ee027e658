package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Progress of the restore a cluster was created with (status.restore). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RestoreStatus extends FieldText {
    @JsonPropertyDescription("The backup restored (its id in the store).")
    public String backupId;

    @JsonPropertyDescription("Pending, Running, Completed or Failed.")
    public RestorePhase phase;

    public String startTime;

    public String completionTime;

    @JsonPropertyDescription("Backed-up members' parts sent (each is read by one member of this cluster).")
    public Integer partsDone;

    public Integer partsTotal;

    @JsonPropertyDescription("Bytes downloaded by every member so far.")
    public Long bytesDownloaded;

    public Long bytesTotal;

    @JsonPropertyDescription("Records sent to their owners so far.")
    public Long recordsSent;

    @JsonPropertyDescription("What the restore waits for, or why it failed.")
    public String message;
}
