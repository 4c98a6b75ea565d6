# Tesuji: set-up and every job. `make match` and `make test` work from a clean clone.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
GNUGO ?= /usr/games/gnugo
DATA ?= ../shared/data
PACHI_SOURCE ?= ../shared/tools/pachi
PACHI_DIR ?= $(HOME)/.cache/pachi
PACHI ?= $(PACHI_DIR)/pachi-12.90/pachi
BASE_DIR ?= $(HOME)/.cache/tesuji/base
BASE ?= $(BASE_DIR)/tesuji
MATCH_CONFIG ?= bench/configs/match/quick.yaml
LEAGUE_CONFIG ?= bench/configs/league/9x9.yaml

.PHONY: install deps gnugo pachi base build test default-config match bench-league bench-speed bench-engine-speed bench-prior-cost bench-predict bench-fbt bench-fbt-runs bench-tactics bench-regress check-rules train train-fbt clean \
  train-dtree train-spt train-pbn train-fbt-kgs train-fbt-s02 train-mm-kgs train-dtree-sets train-spt-thesis train-cited

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

# Pachi 12.90 (no DCNN), a sparring engine like GnuGo, built outside the project from its source and build
# script in $(PACHI_SOURCE) (a minute or less); configs name it {pachi}, PACHI=PATH points them at another build.
pachi: $(PACHI)
$(PACHI):
	$(PACHI_SOURCE)/build.sh $(PACHI_DIR)

# The engine as it was at COMMIT, the other side of an A/B match against the present one: that commit's files
# (git archive, no worktree) in $(BASE_DIR)/<full hash>/, its extensions built in place, and a `tesuji` script
# there that runs its GTP front end with the interpreter that built it. $(BASE) links to the newest build;
# configs name it {base}, and BASE=PATH or --program base=PATH (the path printed here) picks another.
base:
	@test -n "$(COMMIT)" || { echo "make base: name the commit to build, e.g. make base COMMIT=HEAD~" >&2; exit 2; }
	@set -e; rev=$$(git rev-parse --verify --quiet "$(COMMIT)^{commit}") \
	  || { echo "make base: $(COMMIT) is not a commit of this repository" >&2; exit 2; }; \
	dir=$(BASE_DIR)/$$rev; \
	if [ ! -d $$dir ]; then \
	  rm -rf $$dir.tmp; mkdir -p $$dir.tmp; git archive $$rev | tar -x -C $$dir.tmp; \
	  (cd $$dir.tmp && $(PYTHON) setup.py --quiet build_ext --inplace -j 2); \
	  mv $$dir.tmp $$dir; \
	fi; \
	printf '#!/bin/sh\n# Tesuji at commit %s\ncd %s && exec %s -m gtp.cli "$$@"\n' \
	  $$rev $$dir "$$($(PYTHON) -c 'import sys; print(sys.executable)')" > $$dir/tesuji; \
	chmod +x $$dir/tesuji; \
	ln -sfn $$rev/tesuji $(BASE_DIR)/tesuji; \
	echo "--program base=$$dir/tesuji"

# The Cython extensions, in place, and the `tesuji` console command.
build: deps
	$(PYTHON) setup.py --quiet build_ext --inplace -j 2
	$(PIP) install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e .

test: install
	$(PYTHON) -m pytest -q tests
	$(PYTHON) -m bench.results --check

# configs/default.yaml, generated from the table of knobs in engine/params.py (a test checks it is current).
default-config:
	$(PYTHON) -m engine.config --write-default

match: install
	$(PYTHON) -m bench.match $(MATCH_CONFIG) --program pachi=$(PACHI) --program base=$(BASE)

# A round robin of engine variants rated by Bradley-Terry Elo (hours: 600 games for the 9x9 league).
bench-league: install
	$(PYTHON) -m bench.league $(LEAGUE_CONFIG) --jobs 2 --program pachi=$(PACHI) --program base=$(BASE)

bench-speed: install
	$(PYTHON) -m bench.speed

# Playouts a second of the default engine, no prior and Pachi in one run, one thread each, through GTP.
bench-engine-speed: install pachi
	$(PYTHON) -m bench.engine_speed bench/configs/speed/pachi.yaml --program pachi=$(PACHI)

# The time per move each shipped prior costs the search at equal playouts (10,000), against no prior.
bench-prior-cost: install
	$(PYTHON) -m bench.prior_cost --data $(DATA)

check-rules: install
	$(PYTHON) -m bench.rules --data $(DATA)

clean:
	rm -rf build *.egg-info .deps.stamp
	find engine priors \( -name "*.c" -o -name "*.so" \) -delete

# Learned priors: train a shipped model from its config in bench/configs/train/ (the model's header records
# the config, its training data and the data split that chose its settings), and measure move prediction.
TRAIN = $(PYTHON) -m priors.training.train
train: install
	$(TRAIN) bench/configs/train/mm-pro.yaml

train-fbt: install
	$(TRAIN) bench/configs/train/fbt-pro.yaml

train-dtree: install
	$(TRAIN) bench/configs/train/dtree.yaml

train-spt: install
	$(TRAIN) bench/configs/train/spt-forest.yaml

train-pbn: install
	$(TRAIN) bench/configs/train/pbn.yaml

# The models once shipped that records and experiment configs cite, rebuilt into $(MODELS) (their digests are
# in the configs; the training is deterministic): the KGS-trained fbt and mm, fbt at one position in 50, the
# dtree feature sets, the SPT forests of the thesis's settings. `make train-cited` builds them all.
MODELS ?= $(HOME)/.cache/tesuji/models
train-fbt-kgs: install
	$(TRAIN) bench/configs/train/fbt.yaml --set fbt.groups=legacy --output $(MODELS)/fbt-kgs.npz

train-fbt-s02: install
	$(TRAIN) bench/configs/train/fbt-pro.yaml --set data.sample=0.02 --output $(MODELS)/fbt-s02.npz

train-mm-kgs: install
	$(TRAIN) bench/configs/train/mm.yaml --set data.max_games=20000 --set 'data.archives=[kgs6d_even.tar.xz, tom9d.tar.xz]' \
	  --set validation.max_games=200 --set mm.groups=legacy --output $(MODELS)/mm-kgs.npz

train-dtree-sets: install
	$(TRAIN) bench/configs/train/dtree.yaml --set 'dtree.groups=[tactical]' --set dtree.fitted_trees=8 --output $(MODELS)/dtree-t.npz
	$(TRAIN) bench/configs/train/dtree.yaml --set 'dtree.groups=[tactical, trees]' --set dtree.fitted_trees=8 \
	  --output $(MODELS)/dtree-tdt.npz

train-spt-thesis: install
	$(TRAIN) bench/configs/train/spt.yaml --output $(MODELS)/spt-thesis-1.npz
	$(TRAIN) bench/configs/train/spt.yaml --set spt.n_trees=5 --output $(MODELS)/spt-thesis-5.npz
	$(TRAIN) bench/configs/train/spt.yaml --set spt.n_trees=20 --output $(MODELS)/spt-thesis-20.npz
	$(TRAIN) bench/configs/train/spt.yaml --set spt.last_moves=2 --output $(MODELS)/spt-last-1.npz
	$(TRAIN) bench/configs/train/spt.yaml --set spt.last_moves=2 --set spt.n_trees=5 --output $(MODELS)/spt-last-5.npz
	$(TRAIN) bench/configs/train/spt.yaml --set spt.n=10000 --set spt.d=14 --set spt.n_trees=5 --output $(MODELS)/spt-thesis-n10000-d14-5.npz

train-cited: train-fbt-kgs train-fbt-s02 train-mm-kgs train-dtree-sets train-spt-thesis

bench-predict: install
	$(PYTHON) -m bench.predict priors/models/mm.npz --data $(DATA) --name mm

# FBT against LFR (and MM) on both feature sets, k = 5 and 10, 20,000 training games (Xiao & Mueller's
# Tables 1 and 2): trains the models into $(FBT_MODELS), extracting each feature set's competitions once
# (cached under ~/.cache/tesuji), then scores them with the shipped mm model on the test split.
# About an hour and a half on an idle 2-core machine; 5 GB of RAM and 7 GB of disk for the cache.
# FBT_GROUPS=legacy trains the 12 feature groups of the shipped models (the README's table), all (the
# default) adds side extensions, corner openings and the playout-policy flags.
FBT_MODELS ?= $(HOME)/.cache/tesuji/models
FBT_GROUPS ?= all
FBT_TRAIN = $(PYTHON) -m priors.training.train bench/configs/train/fbt.yaml --set data.data_dir=$(DATA) \
  --set fbt.groups=$(FBT_GROUPS) --set mm.groups=$(FBT_GROUPS)
bench-fbt: install
	mkdir -p $(FBT_MODELS)
	$(FBT_TRAIN) --set fbt.k=10 --output $(FBT_MODELS)/fbt10-large.npz
	$(FBT_TRAIN) --set fbt.k=5 --output $(FBT_MODELS)/fbt5-large.npz
	$(FBT_TRAIN) --set fbt.k=10 --set fbt.loss=binary --output $(FBT_MODELS)/lfr10-large.npz
	$(FBT_TRAIN) --set fbt.k=5 --set fbt.loss=binary --output $(FBT_MODELS)/lfr5-large.npz
	$(FBT_TRAIN) --set patterns.min_count=0 --set fbt.k=10 --output $(FBT_MODELS)/fbt10-small.npz
	$(FBT_TRAIN) --set patterns.min_count=0 --set fbt.k=5 --output $(FBT_MODELS)/fbt5-small.npz
	$(FBT_TRAIN) --set patterns.min_count=0 --set fbt.k=10 --set fbt.loss=binary --output $(FBT_MODELS)/lfr10-small.npz
	$(FBT_TRAIN) --set patterns.min_count=0 --set fbt.k=5 --set fbt.loss=binary --output $(FBT_MODELS)/lfr5-small.npz
	$(FBT_TRAIN) --set patterns.min_count=0 --set model=mm --output $(FBT_MODELS)/mm-small.npz
	$(PYTHON) -m bench.predict $(FBT_MODELS)/fbt10-large.npz $(FBT_MODELS)/lfr10-large.npz priors/models/mm.npz \
	  $(FBT_MODELS)/fbt10-small.npz $(FBT_MODELS)/lfr10-small.npz $(FBT_MODELS)/mm-small.npz \
	  --data $(DATA) --name fbt-k10
	$(PYTHON) -m bench.predict $(FBT_MODELS)/fbt5-large.npz $(FBT_MODELS)/lfr5-large.npz \
	  $(FBT_MODELS)/fbt5-small.npz $(FBT_MODELS)/lfr5-small.npz --data $(DATA) --name fbt-k5

# The same comparison as the paper reports it, the mean of 5 seeds per cell (bench/configs/predict/fbt-runs.yaml;
# bench/results/fbt-runs/paper/). Resumable; FBT_RUNS_ONLY="FBT5-small LFR5-small" picks cells. The F_small cells
# take about 40 minutes on an idle core, the sampled-gradient cells 20, the F_large cells several hours.
FBT_RUNS_ONLY ?=
bench-fbt-runs: install
	$(PYTHON) -m bench.fbt_runs bench/configs/predict/fbt-runs.yaml --data $(DATA) $(if $(FBT_RUNS_ONLY),--only $(FBT_RUNS_ONLY))

# The tactical solver: Bayesian proof search vs proof-number search (B1), learned leaf priors (B2),
# GnuGo's reading.tst through attack/defend (B3). About 45 minutes on 2 cores.
bench-tactics: install
	$(PYTHON) -m bench.tactics --data $(DATA)

# GnuGo's regression suite through the default engine: its 2,536 move tests (reg_genmove,
# restricted_genmove), per .tst file, into bench/results/regress/default/. Resumes; about an hour on 2 cores.
bench-regress: install
	$(PYTHON) -m bench.regress --data $(DATA) --jobs 2

# The SPT parameter study (Tidwell 2012 Figs 5.1-5.5): accuracy against d, m, s, w_p and n, one PNG per
# parameter in bench/results/spt-study/thesis/ (bench/configs/predict/spt-study.yaml). SPT_STUDY_ONLY="d m" limits it.
.PHONY: bench-spt-study
bench-spt-study: install
	$(PYTHON) -m bench.spt_study bench/configs/predict/spt-study.yaml --set data.data_dir=$(DATA) $(if $(SPT_STUDY_ONLY),--only $(SPT_STUDY_ONLY))
