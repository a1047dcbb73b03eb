ByJ<†‹BHÄB‚CòáDÂ06;Àu‹•Á#PÀÃà°BðÙA.ÔBâs˜Beà«Bs…B.ÚCª
HC