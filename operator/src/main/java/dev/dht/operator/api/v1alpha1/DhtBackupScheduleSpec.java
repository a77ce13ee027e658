package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** Backups of a cluster on a cron schedule, with retention. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DhtBackupScheduleSpec {
    @Required
    @JsonPropertyDescription("Name of the DhtCluster (same namespace) to back up.")
    public String cluster;

    @Required
    @Size(max = 128)
    @JsonPropertyDescription(
            "When to back up, in cron syntax (UTC): minute hour day-of-month month day-of-week, e.g."
                    + " '0 3 * * *', or @hourly, @daily, @weekly, @monthly. A run is skipped while the previous one still runs.")
    public String schedule;

    @Default("false")
    @JsonPropertyDescription("Start no new backup while true (retention still runs).")
    public Boolean suspend;

    @Default("{}")
    @JsonPropertyDescription("Which backups are kept.")
    public RetentionSpec keep;
}
