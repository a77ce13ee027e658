package dev.dht.node.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TokensTest {
    static final String RO = "ro-0123456789abcdef";
    static final String RW = "rw-0123456789abcdef";
    static final String ADMIN = "admin-0123456789abcdef";

    @Test
    void oneTokenALineWithItsScopeCommentsAndBlanksIgnored() {
        Tokens t = Tokens.parse("# client tokens\n\nread-only " + RO + "\n  read-write\t" + RW + "   # the app\r\n"
                + "admin " + ADMIN + "\n");
        assertThat(t.size()).isEqualTo(3);
        assertThat(t.scopeOf(RO)).isEqualTo(Scope.READ_ONLY);
        assertThat(t.scopeOf(RW)).isEqualTo(Scope.READ_WRITE);
        assertThat(t.scopeOf(ADMIN)).isEqualTo(Scope.ADMIN);
        assertThat(t.scopeOf("nope-0123456789abcdef")).isNull();
        assertThat(t.scopeOf(RO + " ")).isNull();
    }

    @Test
    void badLinesAreNamed() {
        assertThatThrownBy(() -> Tokens.parse("read-only " + RO + "\nwrite " + RW))
                .hasMessageContaining("line 2")
                .hasMessageContaining("unknown scope 'write'");
        assertThatThrownBy(() -> Tokens.parse("read-only short")).hasMessageContaining("at least 16");
        assertThatThrownBy(() -> Tokens.parse("read-only " + RO + " extra")).hasMessageContaining("<scope> <token>");
        assertThatThrownBy(() -> Tokens.parse("read-only " + RO + "\nadmin " + RO))
                .hasMessageContaining("two scopes");
    }

    @Test
    void eachScopeIncludesTheOnesBelow() {
        assertThat(Scope.ADMIN.allows(Scope.READ_WRITE)).isTrue();
        assertThat(Scope.READ_WRITE.allows(Scope.READ_ONLY)).isTrue();
        assertThat(Scope.READ_ONLY.allows(Scope.READ_WRITE)).isFalse();
        assertThat(Scope.READ_WRITE.allows(Scope.ADMIN)).isFalse();
    }
}
