package dev.dht.bench.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.ring.Ring;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpreadReportTest {

    @Test
    void writesTheMarkdownAndJsonReports(@TempDir Path out) throws Exception {
        SpreadReport.main(new String[] {
            "--keys",
            "20000",
            "--nodes",
            "3..5",
            "--vnodes",
            "16," + Ring.DEFAULT_VNODES,
            "--lookup-nodes",
            "3",
            "--round-ms",
            "2",
            "--out",
            out.toString()
        });

        String md = Files.readString(out.resolve("ring.md"));
        assertThat(md)
                .contains("## 1. Vnodes per member", "## 2.", "## 3.", "## 4. Keys moved", "## 5. Lookup cost")
                .contains("| ring (default) | " + Ring.DEFAULT_VNODES + " |", "| rendezvous |")
                .contains("| 3 → 4 |", "| 4 → 5 |");
        // nothing moves between old nodes, for either placement: every "to old nodes" cell of the moves table is 0
        String moves = md.substring(md.indexOf("| 3 → 4 |"), md.indexOf("## 5."));
        for (String row : moves.strip().split("\n")) {
            String[] cells = row.split("\\|");
            assertThat(cells[4].strip()).as(row).isEqualTo("0");
            assertThat(cells[6].strip()).as(row).isEqualTo("0");
            assertThat(cells[9].strip()).as(row).isEqualTo("0");
            assertThat(cells[11].strip()).as(row).isEqualTo("0");
        }
        // racks: as many racks as copies, every rack holds exactly one copy of each key; 1+3+3's lone member all
        assertThat(md)
                .contains("## 6. Racks")
                .contains("| 2+2+2 | 6 | 1.000 / 1.000 / 1.000 | 0.500 / 0.500 / 0.500 |")
                .contains("| 1+3+3 | 7 | 1.000 / 1.000 / 1.000 | 1.000 / 0.333 / 0.333 |")
                .contains("| 1+3 | 4 | 1.000 / 2.000 | 1.000 / 0.667 |");
        String json = Files.readString(out.resolve("ring.json"));
        assertThat(json)
                .startsWith("{")
                .endsWith("}\n")
                .contains(
                        "\"defaultVnodes\": " + Ring.DEFAULT_VNODES,
                        "\"placement\": \"rendezvous\"",
                        "\"lookupNs\"",
                        "\"racks\"",
                        "\"rackCost\"");
    }

    @Test
    void rejectsUnknownOptions() {
        assertThatThrownBy(() -> SpreadReport.main(new String[] {"--nodez", "3"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--nodez");
        assertThatThrownBy(() -> SpreadReport.main(new String[] {"--nodes", "2..4"}))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
