# mqpy — everything installs itself into .venv; nothing is installed by hand.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: all venv test soak bench demo lint clean

all: test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider

soak: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m soak -o addopts=""

bench: $(STAMP)
	$(PY) -m benchmarks.run --out benchmarks/results.json

demo: $(STAMP)
	$(PY) -m examples.demo

lint: $(STAMP)
	$(VENV)/bin/ruff check mqpy mqpy_chinit mqpy_cli tests benchmarks examples

clean:
	rm -rf $(VENV) build *.egg-info
