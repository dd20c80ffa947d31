"""Other projects' test suites, run against mqpy from ../shared/peer-tests (never copied here)."""
