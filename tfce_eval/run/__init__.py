"""The resumable asynchronous run: the runner, one session per item, retries, the
appender, run metadata and the progress protocol.
"""
