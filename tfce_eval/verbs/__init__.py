"""What each command does, for every task: the one core function a command calls.

`score`, `validate` and `report` serve three kinds of task. The choice among the tasks'
own library calls is made here, once, so that a program gets what the command line gets
by calling one function: `score_files`, `validate_data`, `report_runs`. `tfce_eval.cli`
parses options into their arguments and renders what they return; nothing here prints
or exits.
"""
