"""The training pipeline behind ``train.py``: masked PPO self-play and the tools after it.

- :mod:`.config`: the :class:`~training.config.Config` of a run, YAML files, overrides, ``--help``.
- :mod:`.config_file`: a config file read safely (bounded, each key once) and :class:`ConfigError`.
- :mod:`.opponents`: the table of opponent kinds and who sits at each table.
- :mod:`.rollout`: self-play collection into time-major buffers, per-seat rewards.
- :mod:`.gae`: advantages over per-seat trajectories.
- :mod:`.ppo`: masked sampling and the loss terms of the update.
- :mod:`.teacher`: kickstarting labels (PIMC's action values), computed in worker processes.
- :mod:`.workers`: process pools whose workers never outlive the process that made them.
- :mod:`.evaluation`: the policy against bots through the arena, with 95% intervals.
- :mod:`.logger`: ``metrics.csv``, TensorBoard and the progress bar.
- :mod:`.run_folder`: one run per folder, never written over; ``config.yaml``.
- :mod:`.distill`: phase networks for a trained policy (``python -m training.distill``).
- :mod:`.average`: the mean of several policies' weights (``python -m training.average``).

``train.py`` at the top of the repository runs the loop itself, readable top to bottom.
"""
