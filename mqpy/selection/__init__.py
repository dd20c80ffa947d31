"""Message selectors: IBM's SQL-92 selection strings (MQOD / MQSD SelectionString).

- ``lexer``: selection text to tokens, each with its position.
- ``parser``: tokens to an expression tree, checking IBM's grammar; bad text is
  ``SelectorSyntaxError`` (MQRC_SELECTOR_SYNTAX_ERROR with the offending position).
- ``evaluate``: a tree compiled once to a Python closure over (properties, MQMD), with SQL's
  three-valued logic and Java's numeric promotion; ``compile_selector`` is the entry point.
"""
