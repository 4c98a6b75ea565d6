# Tesuji: set-up and every job. `make match` and `make test` work from a clean clone.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
GNUGO ?= /usr/games/gnugo
DATA ?= ../shared/data
MATCH_CONFIG ?= configs/match-quick.yaml

.PHONY: install deps gnugo build test match bench-speed bench-predict bench-tactics check-rules train clean

install: deps gnugo build

# Python packages, once per requirements change.
deps: .deps.stamp
.deps.stamp: requirements.txt
	$(PIP) install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

# GnuGo 3.8 from Debian, the opponent and referee of matches and tests.
gnugo: $(GNUGO)
$(GNUGO):
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnugo

# The Cython extensions, in place, and the `tesuji` console command.
build: deps
	$(PYTHON) setup.py --quiet build_ext --inplace -j 2
	$(PIP) install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e .

test: install
	$(PYTHON) -m pytest -q tests

match: install
	$(PYTHON) -m bench.match $(MATCH_CONFIG)

bench-speed: install
	$(PYTHON) -m bench.speed

check-rules: install
	$(PYTHON) -m bench.rules --data $(DATA)

clean:
	rm -rf build *.egg-info .deps.stamp engine/*.c engine/*.so priors/*.c priors/*.so

# Learned priors: train the MM model and measure move prediction on unseen games.
train: install
	$(PYTHON) -m priors.train configs/train-mm.yaml

bench-predict: install
	$(PYTHON) -m priors.evaluate priors/models/mm.npz --data $(DATA)

# The tactical solver: Bayesian proof search vs proof-number search (B1), learned leaf priors (B2),
# GnuGo's reading.tst through attack/defend (B3). About 45 minutes on 2 cores.
bench-tactics: install
	$(PYTHON) -m bench.tactics --data $(DATA)
