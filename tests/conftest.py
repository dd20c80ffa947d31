"""Suite-wide settings: small log segments (every queue manager a test makes preallocates its
first segment; 16 MB each would fill a small disk), and servers and subprocesses inherit it."""

from __future__ import annotations

import os

os.environ.setdefault("MQPY_LOG_FILE_PAGES", "1024")  # 4 MB segments
