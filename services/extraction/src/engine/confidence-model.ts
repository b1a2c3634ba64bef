// Written by bench/src/calibrate.ts (`node bench/dist/calibrate.js --write`): do not edit by hand.
// Trained on 544 values of 23 development-half text PDFs of ../shared/corpus, read from the text layer and as scans at 200 and 110 dpi.
export const CONFIDENCE_MODEL = {
  trainedOn: "544 values of 23 development-half text PDFs of ../shared/corpus, read from the text layer and as scans at 200 and 110 dpi",
  weights: {
    "ambiguous": -1.9709,
    "bias": 3.6828,
    "check_failed": 0.3245,
    "check_held": 0.6858,
    "consistent": 1.5163,
    "group_account": 0.1375,
    "group_amount": -1.6089,
    "group_code": 0.6356,
    "group_date": 0.018,
    "group_id": 0.402,
    "group_party": -0.4097,
    "group_table": -0.1329,
    "group_tax_id": 0.9583,
    "label_heading": -1.2849,
    "label_none": 0.9522,
    "label_strong": 0.4726,
    "label_weak": -0.0071,
    "ocr": -1.0251,
    "ocr_word_doubt": -0.3289,
    "party_guessed": -1.7619,
    "party_heading": 2.1469,
    "place_below": -1.1961,
    "place_inline": 0.126,
    "place_right": 0.2018,
    "place_shape": 1.0012,
    "rows_consistent": -0.2369,
    "rows_sum_agrees": 0.5556
  } as Readonly<Record<string, number>>,
};
