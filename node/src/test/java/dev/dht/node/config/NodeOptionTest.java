package dev.dht.node.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The option table itself: each option once, each fixed default a value the parser accepts and applies. */
class NodeOptionTest {
    @Test
    void everyOptionNameAndEnvironmentVariableAppearsOnce() {
        assertThat(Arrays.stream(NodeOption.values()).map(NodeOption::optionName))
                .doesNotHaveDuplicates()
                .allMatch(n -> n.matches("[a-z][a-z0-9-]*"));
        assertThat(Arrays.stream(NodeOption.values()).map(NodeOption::env)).doesNotHaveDuplicates();
    }

    @Test
    void givingEveryFixedDefaultExplicitlyChangesNothing() throws Exception {
        List<String> args = new ArrayList<>();
        for (NodeOption o : NodeOption.values()) {
            if (o.defaultValue() != null) {
                args.add(o.flag());
                args.add(o.defaultValue());
            }
        }
        assertThat(args).as("most options have a fixed default").hasSizeGreaterThan(40);
        assertThat(ConfigParser.parse(args, Map.of())).isEqualTo(ConfigParser.parse(List.of(), Map.of()));
        assertThat(ConfigParser.backup(args, Map.of())).isEqualTo(ConfigParser.backup(List.of(), Map.of()));
        assertThat(ConfigParser.parse(List.of("--port", "8080"), Map.of()))
                .as("the defaults the tests build by hand are the table's")
                .isEqualTo(NodeConfig.defaults(
                        8080,
                        NodeOption.DATA_DIR.defaultValue() == null
                                ? null
                                : java.nio.file.Path.of(NodeOption.DATA_DIR.defaultValue())));
    }

    @Test
    void helpShowsEachDefaultFromTheTable() {
        String help = ConfigParser.help();
        for (NodeOption o : NodeOption.values()) {
            if (!o.testOnly()) {
                assertThat(help).contains("env " + o.env() + ", default: " + o.shownDefault() + "\n");
            }
        }
        assertThat(NodeOption.REPAIR_RATE.shownDefault())
                .as("sizes shown in their binary unit")
                .isEqualTo("4MiB");
    }
}
