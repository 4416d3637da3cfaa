"""Text tools shared by code search and memory: jieba segmentation, the developer glossary,
the offline Chinese→English gloss (CC-CEDICT), English stop words and stems."""
