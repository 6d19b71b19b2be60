"""Interpretability views over a model and an ARC task; each view is a function returning a figure.

The eleven views: attention.plot_attention, lens.plot_logit_lens, confidence.plot_cell_confidence,
confidence.plot_entropy, agreement.plot_agreement, probes.plot_probes, probes.plot_pca,
patching.plot_patching, confidence.plot_token_loss, errors.plot_error_taxonomy and
compare.plot_stages (the others side by side across training stages). `capture` runs the forward pass.
"""
