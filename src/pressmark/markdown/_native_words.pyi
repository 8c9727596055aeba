from collections.abc import Set

def word_rule(value: str, slug_words: int, /) -> str | None: ...
def bind_word_rules(word_rules: dict[str, str], whole_rules: dict[str, str],
                    modifiers: Set[str], positive: Set[str], layout: Set[str],
                    related_rule: str, profile_rule: str, code_words: Set[str],
                    /) -> None: ...
