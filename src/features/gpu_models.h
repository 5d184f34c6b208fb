/* Rated board power by GPU model name, to put power on a scale that does not
 * depend on the card: features divide watts by the enforced power limit when
 * the trace has it, else by this table's rated (TDP) value.
 *
 * Values are vendor datasheet maximum board power for the SXM/OAM part unless
 * the name says PCIe, divided by the GPUs on a board that carries several (K80,
 * M60, M10, A16: NVML reports each GPU's own power); matching is
 * case-insensitive (a space in a table name matches any run, or none, of
 * spaces, tabs, '-' and '_'), most specific first, and the model token must stand alone
 * in the name (not glued to a letter or digit before it, nor followed by a
 * digit: "GH200" is not an "H200", "RTX A4000" not an "A40").  An unknown model returns NaN, and
 * power features that need a scale then say "not measured" rather than guess.  Not a device
 * database.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_GPU_MODELS_H
#define WT_GPU_MODELS_H

/* Rated board power in watts for the model name, or NaN if unknown. */
double wt_gpu_rated_power_w(const char *model);

#endif
