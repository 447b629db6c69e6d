"""The synthetic TFCE-format dataset that bench/make_synthetic.py writes.

- `values`: telecom value pools and the generators drawing from them;
- `schema`: a function template (`Template`, `Param`) and the doc it becomes;
- `radio`, `operations`: the 30 templates, in two groups;
- `catalogue`: all templates, in the order items draw them;
- `items`: an item of a category with its ground truth (`Built`);
- `answers`: the item's model answer, right or wrong, and its shape;
- `render`: the answer as an outputs line, the ground truth in TFCE's and
  BFCL's forms;
- `write`: one size's files and manifest.

Only the standard library is used, so it runs in either virtual environment.
"""
